/**
 * The few Reflect metadata functions tsyringe (a dependency of @peculiar/x509) insists on finding at load time; it uses
 * them only for constructor parameter types, which @peculiar/x509's classes do not declare. The proper polyfill,
 * `reflect-metadata`, is not installed in this round's node_modules: once it is, replace this file's import with
 * `import 'reflect-metadata'`.
 */
type Target = object;
const store = new WeakMap<Target, Map<string | symbol | undefined, Map<unknown, unknown>>>();

function own(target: Target, prop: string | symbol | undefined, create: boolean) {
    let byProp = store.get(target);
    if (!byProp && create) store.set(target, (byProp = new Map()));
    let map = byProp?.get(prop);
    if (!map && create && byProp) byProp.set(prop, (map = new Map()));
    return map;
}

const R = Reflect as unknown as Record<string, unknown>;
if (typeof R.getMetadata !== 'function') {
    const getOwnMetadata = (key: unknown, target: Target, prop?: string | symbol) => own(target, prop, false)?.get(key);
    const getMetadata = (key: unknown, target: Target, prop?: string | symbol): unknown => {
        for (let t: Target | null = target; t; t = Object.getPrototypeOf(t) as Target | null) {
            const map = own(t, prop, false);
            if (map?.has(key)) return map.get(key);
        }
        return undefined;
    };
    const defineMetadata = (key: unknown, value: unknown, target: Target, prop?: string | symbol) => {
        own(target, prop, true)!.set(key, value);
    };
    Object.assign(R, {
        getOwnMetadata,
        getMetadata,
        defineMetadata,
        hasMetadata: (key: unknown, target: Target, prop?: string | symbol) =>
            getMetadata(key, target, prop) !== undefined,
        hasOwnMetadata: (key: unknown, target: Target, prop?: string | symbol) =>
            own(target, prop, false)?.has(key) ?? false,
        metadata: (key: unknown, value: unknown) => (target: Target, prop?: string | symbol) =>
            defineMetadata(key, value, target, prop),
    });
}
