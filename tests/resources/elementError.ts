import { prettyDOM } from '@testing-library/react';

/**
 * Testing Library's getElementError prints the whole DOM into the error of every failed query. A findBy or waitFor
 * retries its query on every mutation and timer until it passes, so a screen that takes a while to load printed its
 * DOM dozens of times for errors nobody reads: a tenth of a form test's CPU. This error prints the DOM when its message
 * is first read (a failing test's report, or waitFor's timeout, which reads the last error's message), the DOM of that
 * moment, and keeps it.
 */
export function lazyElementError(message: string | null, container: Element | Document): Error {
    const error = new Error(message ?? '');
    error.name = 'TestingLibraryElementError';
    let printed: string | undefined;
    Object.defineProperty(error, 'message', {
        configurable: true,
        enumerable: false,
        get: () =>
            (printed ??= [message, `Ignored nodes: comments, script, style\n${prettyDOM(container)}`]
                .filter(Boolean)
                .join('\n\n')),
    });
    return error;
}
