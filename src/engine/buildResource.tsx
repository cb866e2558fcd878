import { lazy, Suspense, type ComponentType, type ReactElement } from 'react';
import { Route } from 'react-router-dom';
import { CustomRoutes, Loading, Resource, type ResourceProps } from 'react-admin';
import type { ApiResource } from '../../dataProvider/types';
import { AllPage } from '../pages/AllPage';
import { DefinitionProvider, registerDefinitions, resourcePath } from './context';
import { loadPageView } from './page/loaders';
import type { ResourceDefinition, ViewName } from './types';

export interface BuiltResource {
    /** Props for react-admin's <Resource>; `name` is the route path (SPEC.md's 'product', 'productLog'). */
    props: ResourceProps;
    /** The definition's further routes, for <CustomRoutes>. */
    routes: Array<{ path: string; element: ReactElement; noLayout: boolean }>;
}

// Route chunks: the first screen (welcome page and layout) does not carry tables, forms and their inputs.
const GENERATED: Record<ViewName, ComponentType> = {
    list: lazy(() => import('./List').then((m) => ({ default: m.GeneratedList }))),
    show: lazy(() => import('./Show').then((m) => ({ default: m.GeneratedShow }))),
    edit: lazy(() => import('./Form').then((m) => ({ default: m.GeneratedEdit }))),
    create: lazy(() => import('./Form').then((m) => ({ default: m.GeneratedCreate }))),
};

// Declared pages (detail screens, the dashboard, overviews) render through PageView, in a chunk of its own.
const PageView = lazy(() => loadPageView().then((m) => ({ default: m.PageView })));

const loading = <Loading loadingPrimary="加载中" loadingSecondary="页面加载中，请稍候" />;

/** Which verbs each generated view needs from the api block (no api block: the simple-rest fallback has them all). */
const NEEDS: Record<ViewName, Array<keyof NonNullable<ResourceDefinition['api']>>> = {
    list: ['getList'],
    show: ['getOne'],
    edit: ['getOne', 'update'],
    create: ['create'],
};

function withDefinition(definition: ResourceDefinition, View: ComponentType): ComponentType {
    const Wrapped = () => (
        <DefinitionProvider value={definition}>
            <View />
        </DefinitionProvider>
    );
    Wrapped.displayName = `${definition.name}.${View.displayName ?? View.name ?? 'View'}`;
    return Wrapped;
}

function viewOf(definition: ResourceDefinition, view: ViewName): ComponentType | undefined {
    const override = definition.views?.[view];
    if (override === false) return undefined;
    if (override) return withDefinition(definition, override);
    const api = definition.api;
    if (api && NEEDS[view].some((verb) => !api[verb])) return undefined;
    return withDefinition(definition, GENERATED[view]);
}

/** A definition's <Resource> props and custom routes; each view sees the definition through useDefinition(). */
export function buildResource(definition: ResourceDefinition): BuiltResource {
    const representation = definition.recordRepresentation;
    const list = viewOf(definition, 'list');
    return {
        props: {
            name: resourcePath(definition),
            list,
            // A path under the resource that none of its views takes (/dashboard: the dashboard is a page at
            // /introduce) is the console's 404, as any unknown path; <Resource> alone would render nothing there. With
            // a list view, its catch-all `/*` takes every such path already.
            children: list ? undefined : <Route path="*" element={<AllPage />} />,
            show: viewOf(definition, 'show'),
            edit: viewOf(definition, 'edit'),
            create: viewOf(definition, 'create'),
            icon: definition.icon,
            options: { label: definition.label },
            recordRepresentation:
                typeof representation === 'function'
                    ? (record) => representation(record as Record<string, unknown>)
                    : representation,
        },
        routes: [
            ...(definition.pages ?? []).map((page) => ({
                path: page.path,
                noLayout: !!page.noLayout,
                element: (
                    <DefinitionProvider value={definition}>
                        <Suspense fallback={loading}>
                            <PageView page={page} />
                        </Suspense>
                    </DefinitionProvider>
                ),
            })),
            ...(definition.routes ?? []).map(({ path, element: Element, noLayout }) => ({
                path,
                noLayout: !!noLayout,
                element: (
                    <DefinitionProvider value={definition}>
                        <Suspense fallback={loading}>
                            <Element />
                        </Suspense>
                    </DefinitionProvider>
                ),
            })),
        ],
    };
}

/** <Resource> and <CustomRoutes> elements for <Admin>, one set per definition. */
export function renderResources(definitions: ResourceDefinition[]): ReactElement[] {
    registerDefinitions(definitions);
    return definitions.flatMap((definition) => {
        const built = buildResource(definition);
        const key = resourcePath(definition);
        return [
            <Resource key={key} {...built.props} />,
            ...built.routes.map((route) => (
                <CustomRoutes key={`${key}:${route.path}`} noLayout={route.noLayout}>
                    <Route path={route.path} element={route.element} />
                </CustomRoutes>
            )),
        ];
    });
}

/**
 * The definitions as the data provider reads them, each also under its route name: react-admin asks for
 * 'product' while code that invokes custom calls says 'products'.
 */
export function apiResources(definitions: ResourceDefinition[]): ApiResource[] {
    const aliases = definitions
        .filter((d) => resourcePath(d) !== d.name && !definitions.some((o) => o.name === resourcePath(d)))
        .map((d) => ({ ...d, name: resourcePath(d) }));
    return [...definitions, ...aliases];
}
