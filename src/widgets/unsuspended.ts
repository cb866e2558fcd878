import { createElement, useEffect, useState, type ComponentType, type ReactNode } from 'react';

/**
 * A lazily loaded component that does not suspend: `fallback` stands in until its chunk has loaded, then the component
 * is rendered at once. React shows the content of a suspended boundary no sooner than 300 ms after the last fallback it
 * committed anywhere on the page (so a page of lazy parts does not flicker); for a part whose first paint is measured
 * (the dashboard's device map) that wait is most of what is left once its chunks are preloaded. A load error is
 * thrown from render, to the nearest error boundary, as React.lazy does.
 */
export function unsuspended<P extends object>(
    load: () => Promise<{ default: ComponentType<P> }>,
    fallback: ReactNode,
): ComponentType<P> {
    let loaded: ComponentType<P> | undefined;
    let pending: Promise<ComponentType<P>> | undefined;
    const start = () =>
        (pending ??= load().then((m) => {
            loaded = m.default;
            return m.default;
        }));
    function Unsuspended(props: P) {
        const [component, setComponent] = useState<{ type?: ComponentType<P>; error?: unknown }>(() => ({
            type: loaded,
        }));
        useEffect(() => {
            if (component.type || component.error) return;
            let live = true;
            start().then(
                (type) => live && setComponent({ type }),
                (error: unknown) => {
                    // Tried again on the next mount, as React.lazy would not; the error goes to the boundary now.
                    pending = undefined;
                    if (live) setComponent({ error });
                },
            );
            return () => {
                live = false;
            };
        }, [component]);
        if (component.error) throw component.error;
        return component.type ? createElement(component.type, props) : fallback;
    }
    return Unsuspended;
}
