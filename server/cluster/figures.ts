import { processState } from './health';
import type { NodeFigures } from './node';

/**
 * The cluster's figures as the routes answer them (/monitor/real, consumer groups, /platform): each living member's
 * share as it published it with its last heartbeat (at most NODE_TIMEOUT / 3 old), except this process's own, which
 * is read live. Undefined in one process: the routes answer with their own figures as before.
 */
export async function clusterShares(): Promise<
    Array<{ nodeId: string; self: boolean; startedAt: string; figures: Partial<NodeFigures> }> | undefined
> {
    const cluster = processState()?.cluster;
    if (!cluster) return undefined;
    const rows = await cluster.nodes();
    const mine = cluster.own();
    return rows.map((r) => ({
        nodeId: r.nodeId,
        self: r.nodeId === cluster.nodeId,
        startedAt: r.startedAt,
        figures: (r.nodeId === cluster.nodeId && mine ? mine : r.figures) as Partial<NodeFigures>,
    }));
}
