/** Where '/' lands: the welcome page, as SPEC.md's shell does after load. */
export const HOME = '/introduce';

/**
 * The shell's redirects (App.tsx renders them as routes; preloadRoute follows them to fetch the right page's code).
 * /device: SPEC.md's dashboard product links use the products' route under an older name.
 */
export const SHELL_REDIRECTS: Readonly<Record<string, string>> = {
    '/accessplatform': HOME,
    '/device': '/product',
};

/** The page a pathname shows once the shell's redirects are followed. */
export function redirectTarget(pathname: string): string {
    return pathname === '/' ? HOME : (SHELL_REDIRECTS[pathname] ?? pathname);
}
