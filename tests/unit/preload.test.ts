import { beforeEach, describe, expect, it, vi } from 'vitest';

// The page chunks are spies here: what matters is which ones the URL starts, not their React code.
const loaders = vi.hoisted(() => ({
    loadPageView: vi.fn(() => Promise.resolve({})),
    loadChartSection: vi.fn(() => Promise.resolve({})),
    loadStreamSection: vi.fn(() => Promise.resolve({})),
    loadMarkdownSection: vi.fn(() => Promise.resolve({})),
    loadDocumentSection: vi.fn(() => Promise.resolve({})),
    loadTimeGridSection: vi.fn(() => Promise.resolve({})),
}));
vi.mock('../../src/engine/page/loaders', () => loaders);

const { preloadRoute } = await import('../../src/engine/preload');
const { registerWidget } = await import('../../src/widgets/registry');
import type { ResourceDefinition } from '../../src/engine/types';
import dashboard from '../../resources/dashboard';

const mapWidget = vi.fn(() => Promise.resolve({ default: () => null }));
const tabWidget = vi.fn(() => Promise.resolve({ default: () => null }));
registerWidget('probeMap', mapWidget);
registerWidget('probeTab', tabWidget);
const document = vi.fn(() => Promise.resolve('# 文档'));

const definitions = [
    {
        name: 'probe',
        label: '探针',
        fields: {},
        pages: [
            {
                path: '/probeBoard',
                title: '看板',
                sections: [
                    { kind: 'row', sections: [{ kind: 'chart', chart: { kind: 'pie', call: { call: 'x' } } }] },
                    { kind: 'widget', widget: 'probeMap' },
                ],
            },
            {
                path: '/probeDetail/:id/*',
                title: '详情',
                sections: [{ kind: 'markdown', load: document }],
                tabs: [{ key: 'a', label: 'A', sections: [{ kind: 'widget', widget: 'probeTab' }] }],
            },
        ],
    },
] as unknown as ResourceDefinition[];

beforeEach(() => {
    for (const spy of [...Object.values(loaders), mapWidget, tabWidget, document]) spy.mockClear();
});

describe('preloadRoute: the page a URL opens starts loading its code before it renders', () => {
    it('starts the page view, its charts (inside rows) and its widgets', () => {
        preloadRoute(definitions, '/probeBoard');
        expect(loaders.loadPageView).toHaveBeenCalledTimes(1);
        expect(loaders.loadChartSection).toHaveBeenCalledTimes(1);
        expect(mapWidget).toHaveBeenCalledTimes(1);
        expect(loaders.loadMarkdownSection).not.toHaveBeenCalled();
    });

    it('matches a route with params and takes the sections above the tabs, not the tabs', () => {
        preloadRoute(definitions, '/probeDetail/7/a');
        expect(loaders.loadMarkdownSection).toHaveBeenCalledTimes(1);
        expect(document).toHaveBeenCalledTimes(1);
        expect(tabWidget).not.toHaveBeenCalled();
        expect(mapWidget).not.toHaveBeenCalled();
    });

    it('starts nothing for a URL no page has (a list, the sign-on page)', () => {
        preloadRoute(definitions, '/product');
        expect(loaders.loadPageView).not.toHaveBeenCalled();
        expect(mapWidget).not.toHaveBeenCalled();
    });

    it("'/' opens the dashboard: its map widget and charts start", async () => {
        const registry = await import('../../src/widgets/registry');
        // Every widget's chunk a spy: a real import started here would finish after this file's environment is gone.
        for (const name of Object.keys(registry.widgetLoaders))
            vi.spyOn(registry.widgetLoaders, name).mockResolvedValue({ default: () => null });
        const deviceMap = vi.mocked(registry.widgetLoaders.deviceMap);
        preloadRoute([dashboard], '/');
        expect(deviceMap).toHaveBeenCalledTimes(1);
        expect(loaders.loadChartSection).toHaveBeenCalled();
        expect(loaders.loadPageView).toHaveBeenCalledTimes(1);
    });
});
