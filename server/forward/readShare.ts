import type { Db } from '../db/client';
import { readMessages, type MessagesRead } from './messages';

/**
 * A read of one project's messages after a position, up to the horizon: the project's messages of the next block of
 * ids, and the id up to which the read went (the route's next position).
 */
export type ReadMessages = (projectId: number, after: number, upTo: number) => Promise<MessagesRead>;

/** The store's read (server/forward/messages.ts readMessages' shape). */
export type StoreRead = (after: number, upTo: number, limit: number) => Promise<MessagesRead>;

interface Block {
    /** Every message of the block with an id up to `through` is in `messages`, in id order. */
    through: number;
    messages: MessagesRead['messages'];
    /** The read extending the block, while one runs. */
    extending: Promise<void> | undefined;
}

/**
 * The store's messages as a process's routes read them: in blocks of `size` ids (block k holds the ids k·size + 1 to
 * (k + 1)·size) of every project, each block read from the store once and kept while recent (the last `keep` blocks
 * used), the routes taking their own project's messages from it at their own positions. So ten flows read each message
 * once, at whatever pace each goes; the block at the head, still filling, is read on from where it was read to the
 * horizon, not again from its start. Ids up to the horizon are settled (server/forward/horizon.ts): a block read up to
 * it stays true. When a route reads a block and the horizon is past it, the next block is read meanwhile, so the
 * route's next read is ready once its destination has acknowledged this one.
 */
export function sharedReads(
    db: Db,
    size: number,
    keep = 64,
    read: StoreRead = (after, upTo, limit) => readMessages(db, after, upTo, limit),
): ReadMessages {
    const blocks = new Map<number, Block>();

    function blockOf(k: number): Block {
        let block = blocks.get(k);
        if (block) blocks.delete(k);
        else block = { through: k * size, messages: [], extending: undefined };
        // Map order is use order: the first is the least recently used.
        blocks.set(k, block);
        while (blocks.size > keep) blocks.delete(blocks.keys().next().value!);
        return block;
    }

    /** Reads the block on until `to` (within it). */
    async function fill(block: Block, to: number): Promise<void> {
        while (block.through < to) {
            if (!block.extending) {
                const from = block.through;
                block.extending = read(from, to, size)
                    .then((r) => {
                        block.messages.push(...r.messages.filter((m) => m.id > block.through));
                        block.through = Math.max(block.through, r.through);
                    })
                    .finally(() => (block.extending = undefined));
            }
            await block.extending;
        }
    }

    return async (projectId, after, upTo) => {
        const k = Math.floor(after / size);
        const end = Math.min(upTo, (k + 1) * size);
        const block = blockOf(k);
        await fill(block, end);
        if (upTo > (k + 1) * size) {
            const next = blockOf(k + 1);
            fill(next, Math.min(upTo, (k + 2) * size)).catch(() => undefined);
        }
        const messages = block.messages.filter((m) => m.id > after && m.id <= end && m.projectId === projectId);
        return { messages, through: end };
    };
}
