/** The persistence calls about wills (aedes-persistence's interface). */
interface WillCalls {
    putWill(client: { id: string }, will: unknown): Promise<unknown>;
    delWill(client: { id: string; brokerId?: string }): Promise<unknown>;
}

/** Which client ids have a will stored by this broker and not deleted since. */
export interface WillLedger {
    ids: Set<string>;
    brokerId: () => string;
}

/** A will stored: noted. */
export function notePut(ledger: WillLedger, clientId: string) {
    ledger.ids.add(clientId);
}

/**
 * Whether a delWill must reach the store. aedes deletes a client id's will at every CONNECT (before storing the new
 * one); with Redis that is three commands per connect, for a will that is mostly not there. This broker's wills are
 * the ones it stored; another, dead broker's (`brokerId` set to it, from aedes' will sweep) always go through.
 */
export function mustDelete(ledger: WillLedger, client: { id: string; brokerId?: string }): boolean {
    if (client.brokerId !== undefined && client.brokerId !== ledger.brokerId()) return true;
    return ledger.ids.delete(client.id);
}

/**
 * The persistence as aedes sees it: every call goes to `store` (bound to it: its methods use private fields), but
 * delWill skips the store when this broker stored no will for the id. A wrapper object is aedes' supported seam for a
 * persistence (its `persistence` option).
 */
export function withWillLedger<T extends object>(store: T & WillCalls, ledger: WillLedger): T {
    const putWill: WillCalls['putWill'] = (client, will) => (notePut(ledger, client.id), store.putWill(client, will));
    const delWill: WillCalls['delWill'] = (client) =>
        mustDelete(ledger, client) ? store.delWill(client) : Promise.resolve(undefined);
    return new Proxy(store, {
        get(target, prop) {
            if (prop === 'putWill') return putWill;
            if (prop === 'delWill') return delWill;
            const value: unknown = Reflect.get(target, prop, target);
            return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
    });
}
