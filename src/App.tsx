import { useMemo, useState, type ReactNode } from 'react';
import { Navigate, Route } from 'react-router-dom';
import { CustomRoutes, type AuthProvider, type DataProvider, type I18nProvider, type Store } from 'react-admin';
import { createDataProvider } from '../dataProvider';
import { createAuthProvider } from './auth/authProvider';
import { apiResources, renderResources } from './engine/buildResource';
import { HOME, SHELL_REDIRECTS } from './engine/redirects';
import { RegistryProvider } from './engine/registry';
import type { ResourceDefinition } from './engine/types';
import { i18nProvider as defaultI18nProvider } from './i18n';
import { ConsoleAdmin } from './layout/ConsoleAdmin';
import { AppLayout } from './layout/Layout';
import { APP_NAME } from './layout/Header';
import { SHELL_API } from './layout/shellApi';
import { theme } from './layout/theme';
import { AllPage } from './pages/AllPage';
import { Login } from './pages/Login';
import { Logout } from './pages/Logout';

export interface AppProps {
    /**
     * The resource registry (resources/index.ts): every definition, found by the entry, never imported here. The
     * entry passes it as a promise (its own chunk, fetched beside the first screen, so the sign-in page and the
     * sign-in check do not wait for definitions, forms and validators); tests pass the list itself.
     */
    resources: ResourceDefinition[] | Promise<ResourceDefinition[]>;
    /** Tests pass their own; by default the platform data provider over every registered resource. */
    dataProvider?: DataProvider;
    /** Tests pass their own; by default one per mounted console, over the session the page came with. */
    authProvider?: AuthProvider;
    i18nProvider?: I18nProvider;
    /** Where react-admin keeps list params and preferences (default: local storage). */
    store?: Store;
}

/** '/' lands on the welcome page, as SPEC.md's shell does after load. */
const Home = () => <Navigate to={HOME} replace />;

export function createPlatformDataProvider(
    resources: ResourceDefinition[] | Promise<ResourceDefinition[]>,
): DataProvider {
    const all = (list: ResourceDefinition[]) => [...apiResources(list), SHELL_API];
    return createDataProvider(Array.isArray(resources) ? all(resources) : resources.then(all));
}

/** Routes outside the definitions: the shell's redirects and the sign-out page. */
function shellRoutes(): ReactNode[] {
    return [
        <CustomRoutes key="shell">
            {Object.entries(SHELL_REDIRECTS).map(([from, to]) => (
                <Route key={from} path={from} element={<Navigate to={to} replace />} />
            ))}
        </CustomRoutes>,
        <CustomRoutes key="shell-nolayout" noLayout>
            <Route path="/logout" element={<Logout />} />
        </CustomRoutes>,
    ];
}

/**
 * The console: react-admin over the resource registry. Routes use browser URLs, so every page (list state
 * included, in the query string) can be bookmarked; the server answers index.html for deep links.
 */
export function App({ resources, dataProvider, authProvider, i18nProvider = defaultI18nProvider, store }: AppProps) {
    const provider = useMemo(() => dataProvider ?? createPlatformDataProvider(resources), [dataProvider, resources]);
    const [ownAuth] = useState(() => authProvider ?? createAuthProvider());
    const [loaded, setLoaded] = useState<ResourceDefinition[]>(Array.isArray(resources) ? resources : []);
    // A registry still loading is react-admin's asynchronous children: one stable function per registry, so
    // re-renders do not send the router back to its loading state.
    const children = useMemo(() => {
        if (Array.isArray(resources)) return [...renderResources(resources), ...shellRoutes()];
        return () =>
            resources.then((list) => {
                setLoaded(list);
                return [...renderResources(list), ...shellRoutes()];
            });
    }, [resources]);
    return (
        <RegistryProvider value={loaded}>
            <ConsoleAdmin
                title={APP_NAME}
                dataProvider={provider}
                authProvider={authProvider ?? ownAuth}
                i18nProvider={i18nProvider}
                store={store}
                theme={theme}
                layout={AppLayout}
                loginPage={Login}
                catchAll={AllPage}
                dashboard={Home}
                requireAuth
                disableTelemetry
            >
                {children}
            </ConsoleAdmin>
        </RegistryProvider>
    );
}

export default App;
