import { usePermissions } from 'ra-core';

/**
 * The signed-in user's rights (`family.action`, schemas/rights.ts), as the authProvider's getPermissions answers them
 * (GET /api/sso/getUserInfo `rights`). An action with `right` is hidden when the user lacks it; the server refuses the
 * call anyway (403), this only keeps buttons that cannot work off the screen. While the rights load, guarded actions
 * stay hidden; an authProvider that answers no list (an older server) leaves every action shown.
 */
export function useCan(): (right: string | undefined) => boolean {
    const { permissions, isPending } = usePermissions<unknown>();
    return (right) => {
        if (!right) return true;
        if (isPending) return false;
        if (!Array.isArray(permissions)) return true;
        return permissions.includes(right);
    };
}

/** The rights the generated create / edit / delete of a resource need, from its `rightFamily`. */
export function familyRight(family: string | undefined, action: 'create' | 'edit' | 'delete'): string | undefined {
    return family ? `${family}.${action}` : undefined;
}
