import { describe, expect, it } from 'vitest';
import { pendingWrites } from '../../server/amqp/pendingWrites';

/** Acknowledgements and released claims the database refused once are written when it answers again, in order. */
describe('pendingWrites', () => {
    it('keeps a batch the database refused and writes it on a retry, then the ids added since', async () => {
        const written: number[][] = [];
        const errors: string[] = [];
        let down = true;
        const w = pendingWrites({
            write: async (ids) => {
                if (down) throw new Error('database away');
                written.push(ids);
            },
            failed: (err) => errors.push(String(err)),
            lingerMs: 0,
            maxBatch: 2,
            retryMs: 20,
        });
        w.add([1, 2, 3]);
        await w.flush();
        expect(written).toEqual([]);
        expect(w.pending).toBe(3);
        expect(errors).toEqual(['Error: database away']);
        down = false;
        w.add([4]);
        await expect.poll(() => w.pending, { timeout: 2_000 }).toBe(0);
        expect(written).toEqual([
            [1, 2],
            [3, 4],
        ]);
        w.close();
    });

    it('stops retrying once closed', async () => {
        let attempts = 0;
        const w = pendingWrites({
            write: async () => {
                attempts++;
                throw new Error('database away');
            },
            failed: () => undefined,
            lingerMs: 0,
            maxBatch: 10,
            retryMs: 10,
        });
        w.add([1]);
        await w.flush();
        w.close();
        const after = attempts;
        await new Promise((r) => setTimeout(r, 100));
        expect(attempts).toBe(after);
        expect(w.pending).toBe(1);
    });
});
