import { useMemo } from 'react';
import { Navigate, Route } from 'react-router-dom';
import { Admin, CustomRoutes, type AuthProvider, type DataProvider, type I18nProvider, type Store } from 'react-admin';
import { createDataProvider } from '../dataProvider';
import { authProvider as defaultAuthProvider } from './auth/authProvider';
import { apiResources, renderResources } from './engine/buildResource';
import { RegistryProvider } from './engine/registry';
import type { ResourceDefinition } from './engine/types';
import { i18nProvider as defaultI18nProvider } from './i18n';
import { AppLayout } from './layout/Layout';
import { APP_NAME } from './layout/Header';
import { PlaceholderPage } from './layout/PlaceholderPage';
import { SHELL_API } from './layout/shellApi';
import { theme } from './layout/theme';
import { AllPage } from './pages/AllPage';
import { Login } from './pages/Login';
import { Logout } from './pages/Logout';

export interface AppProps {
    /** The resource registry (resources/index.ts): every definition, found by the entry, never imported here. */
    resources: ResourceDefinition[];
    /** Tests pass their own; by default the platform data provider over every registered resource. */
    dataProvider?: DataProvider;
    authProvider?: AuthProvider;
    i18nProvider?: I18nProvider;
    /** Where react-admin keeps list params and preferences (default: local storage). */
    store?: Store;
}

/** '/' lands on the welcome page, as SPEC.md's shell does after load. */
const Home = () => <Navigate to="/introduce" replace />;

export function createPlatformDataProvider(resources: ResourceDefinition[]): DataProvider {
    return createDataProvider([...apiResources(resources), SHELL_API]);
}

/**
 * The console: react-admin over the resource registry. Routes use browser URLs, so every page (list state
 * included, in the query string) can be bookmarked; the server answers index.html for deep links.
 */
export function App({
    resources,
    dataProvider,
    authProvider = defaultAuthProvider,
    i18nProvider = defaultI18nProvider,
    store,
}: AppProps) {
    const provider = useMemo(() => dataProvider ?? createPlatformDataProvider(resources), [dataProvider, resources]);
    return (
        <RegistryProvider value={resources}>
            <Admin
                title={APP_NAME}
                dataProvider={provider}
                authProvider={authProvider}
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
                {renderResources(resources)}
                <CustomRoutes>
                    <Route path="/accessplatform" element={<Navigate to="/introduce" replace />} />
                    <Route path="/usercenter" element={<PlaceholderPage title="用户中心" />} />
                    <Route path="/safetybutler" element={<PlaceholderPage title="安全管家" />} />
                </CustomRoutes>
                <CustomRoutes noLayout>
                    <Route path="/logout" element={<Logout />} />
                </CustomRoutes>
            </Admin>
        </RegistryProvider>
    );
}

export default App;
