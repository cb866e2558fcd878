import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, vi } from 'vitest';
import { mswServer } from './helpers';
import { lazyElementError } from './elementError';

// These screens talk to the platform in this thread (msw → app.fetch), written against PGlite in process: an answer
// there is ready before the next timer, so a screen's first data is on screen within a default 1 s findBy. The worker
// (the server's default) answers on its own thread, which a loaded 2-core machine may not schedule that soon; the server
// and e2e projects run it. PGLITE_WORKER=1 runs these on the worker too.
process.env.PGLITE_WORKER ??= '0';

// jsdom has neither (NOTES.md); MUI and react-admin ask for both.
if (!window.matchMedia) {
    Object.defineProperty(window, 'matchMedia', {
        writable: true,
        value: (query: string) => ({
            matches: false,
            media: query,
            onchange: null,
            addListener: () => undefined,
            removeListener: () => undefined,
            addEventListener: () => undefined,
            removeEventListener: () => undefined,
            dispatchEvent: () => false,
        }),
    });
}

if (!('ResizeObserver' in window)) {
    class ResizeObserverStub {
        observe() {}
        unobserve() {}
        disconnect() {}
    }
    Object.defineProperty(window, 'ResizeObserver', { writable: true, value: ResizeObserverStub });
    Object.defineProperty(globalThis, 'ResizeObserver', { writable: true, value: ResizeObserverStub });
}

// The machines are shared and jsdom renders react-admin slowly: give findBy / waitFor room before they fail.
// A failed query's DOM print is made when its message is read (elementError.ts).
configure({ asyncUtilTimeout: 10_000, getElementError: lazyElementError });

// react-admin scrolls to the top on navigation; jsdom only logs "not implemented".
window.scrollTo = vi.fn() as unknown as typeof window.scrollTo;

beforeAll(() => mswServer.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
    cleanup();
    mswServer.resetHandlers();
    localStorage.clear();
});
afterAll(async () => {
    // A chunk a screen began loading and nobody awaited (preloadRoute, a lazy section) finishes before the file ends:
    // the files of a worker share its module cache (isolate: false), and a load cut off by this file's teardown stayed
    // failed there, so a later file's charts threw "Cannot load … after the environment was torn down" (seen in CI).
    await vi.dynamicImportSettled();
    mswServer.close();
});
