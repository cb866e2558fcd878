import { matchPath } from 'react-router-dom';
import { widgetLoaders } from '../widgets/registry';
import { redirectTarget } from './redirects';
import {
    loadChartSection,
    loadDocumentSection,
    loadMarkdownSection,
    loadPageView,
    loadStreamSection,
    loadTimeGridSection,
} from './page/loaders';
import type { ResourceDefinition } from './types';
import type { Section } from './vocabulary';

/** The chunks a section draws with, started now (charts, streams, documents and widgets are chunks of their own). */
function preloadSections(sections: Section[] | undefined): void {
    for (const section of sections ?? []) {
        switch (section.kind) {
            case 'chart':
                void loadChartSection();
                break;
            case 'stream':
                void loadStreamSection();
                break;
            case 'document':
                void loadDocumentSection();
                break;
            case 'timeGrid':
                void loadTimeGridSection();
                break;
            case 'markdown':
                void loadMarkdownSection();
                void section.load();
                break;
            case 'widget':
                void widgetLoaders[section.widget]?.();
                break;
            case 'row':
                preloadSections(section.sections);
                break;
            case 'switch':
                preloadSections(section.options[0]?.sections);
                break;
            case 'tabs':
                preloadSections(section.tabs[0]?.sections);
                break;
        }
    }
}

/**
 * The page a URL opens starts downloading its code when the console starts, beside the sign-in check and the menu,
 * instead of when it renders after them: the page view, and the chunks of its sections (the dashboard's charts and
 * its map with maplibre, a help page's document). Pages without tabs are taken whole; a tabbed page, its sections
 * above the tabs. Failures are left to the render, which shows them.
 */
export function preloadRoute(resources: ResourceDefinition[], pathname: string): void {
    const target = redirectTarget(pathname);
    for (const definition of resources) {
        for (const page of definition.pages ?? []) {
            if (!matchPath({ path: page.path, end: false }, target)) continue;
            void loadPageView().catch(() => undefined);
            try {
                preloadSections(page.sections);
            } catch {
                // a section's own loader failing is the render's to show
            }
            return;
        }
    }
}
