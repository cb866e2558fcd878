import type { Aedes } from 'aedes';
import { FlatEmitter } from '../../../server/mqtt/flatEmitter';
import type { FlatMatcher } from '../../../server/mqtt/flatMatcher';

interface Trie {
    _trie: Map<string, unknown>;
    _separator: string;
}

/**
 * What aedes holds, counted for the bench's rounds: clients by id, and its subscriptions' matcher: for mqemitter's
 * Qlobber the nodes of its trie (one Map per topic level below each subscribed word) and its values (one per filter);
 * for the platform's flat emitter (server/mqtt/flatEmitter.ts, one process) its matcher's keys and values.
 */
export function brokerHeld(aedes: Aedes) {
    const internals = aedes as unknown as {
        clients: Record<string, unknown>;
        connectedClients: number;
        mq: { _matcher?: Trie; matcher?: FlatMatcher };
    };
    const held = { nodes: 0, values: 0 };
    const walk = (node: Map<string, unknown>, separator: string) => {
        held.nodes++;
        for (const [word, child] of node) {
            if (word === separator) held.values += Array.isArray(child) ? child.length : 1;
            else walk(child as Map<string, unknown>, separator);
        }
    };
    const trie = internals.mq._matcher;
    if (trie) walk(trie._trie, trie._separator);
    const matcher = internals.mq instanceof FlatEmitter ? internals.mq.matcher : undefined;
    if (matcher) {
        const maps = [matcher.exact, ...matcher.byPrefix.values()];
        for (const map of maps) {
            held.nodes += map.size;
            for (const values of map.values()) held.values += values.length;
        }
    }
    return {
        clients: Object.keys(internals.clients).length,
        connectedClients: internals.connectedClients,
        trieNodes: held.nodes,
        trieValues: held.values,
    };
}
