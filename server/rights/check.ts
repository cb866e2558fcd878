import { ADMIN_RIGHT, SIGNED_IN_RIGHT } from '../../schemas/rights';
import type { SessionUser } from '../sso/sessions';

/** Whether a granted pattern (`device.delete`, `device.*`, `*.create`, `*`) covers the right. */
export function grants(pattern: string, right: string): boolean {
    if (pattern === '*') return true;
    const [pf, pa] = pattern.split('.');
    const [rf, ra] = right.split('.');
    return (pf === '*' || pf === rf) && (pa === '*' || pa === ra);
}

/** Administrators hold every right; `admin` itself is theirs alone. */
export function hasRight(user: Pick<SessionUser, 'admin' | 'rights'>, right: string): boolean {
    if (user.admin || right === SIGNED_IN_RIGHT) return true;
    if (right === ADMIN_RIGHT) return false;
    return user.rights.some((p) => grants(p, right));
}
