import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { randomDeviceName, type ProductRef } from './devices';

export interface NewDevice {
    deviceName: string;
    remark?: string | null;
    longitude?: number | null;
    latitude?: number | null;
    addr?: string | null;
}

/** Rows per INSERT: one JSON parameter each, so the size is bounded by memory, not by the 65,535-parameter limit. */
export const INSERT_CHUNK = 5000;

/**
 * Inserts devices of one product, skipping names the product already has (ON CONFLICT DO NOTHING), and answers
 * the inserted ids and names. Each chunk travels as one JSON document unpacked by json_to_recordset: a single bind
 * parameter instead of nine per row, which is what makes 10,000 rows a few hundred milliseconds on PGlite.
 * Username and clientId are derived in SQL; secrets come from Node's CSPRNG (never from the caller). More than one
 * chunk is all or nothing only inside the caller's transaction.
 */
export async function insertDevices(
    tx: Db | Tx,
    product: ProductRef,
    rows: NewDevice[],
): Promise<Array<{ id: number; deviceName: string }>> {
    const inserted: Array<{ id: number; deviceName: string }> = [];
    for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
        const chunk = rows.slice(start, start + INSERT_CHUNK);
        const secrets = randomBytes(16 * chunk.length).toString('hex');
        const doc = JSON.stringify(
            chunk.map((r, i) => ({
                n: r.deviceName,
                r: r.remark || null,
                lo: r.longitude ?? null,
                la: r.latitude ?? null,
                a: r.addr || null,
                s: secrets.slice(i * 32, i * 32 + 32),
            })),
        );
        const result = await tx.execute(sql`
            INSERT INTO devices (product_id, device_name, remark, longitude, latitude, addr, username, client_id, secret)
            SELECT ${product.id}, x.n, x.r, x.lo, x.la, x.a,
                   x.n || '&' || ${product.productKey}, ${product.productKey} || '.' || x.n, x.s
            FROM json_to_recordset(${doc}::json) AS x(n text, r text, lo float8, la float8, a text, s text)
            ON CONFLICT (product_id, device_name) DO NOTHING
            RETURNING id, device_name`);
        for (const row of (result as unknown as { rows: Array<{ id: number | string; device_name: string }> }).rows) {
            inserted.push({ id: Number(row.id), deviceName: row.device_name });
        }
    }
    return inserted;
}

/**
 * `amount` new devices with random names, all or nothing (the caller's transaction). A name the product already
 * has, or one drawn twice, is simply drawn again until `amount` rows are in.
 */
export async function batchRegister(tx: Tx, product: ProductRef, amount: number): Promise<string[]> {
    const names: string[] = [];
    for (let round = 0; names.length < amount; round++) {
        if (round > 10) throw new Error('could not draw unique device names');
        const wanted = new Set<string>();
        while (wanted.size < amount - names.length) wanted.add(randomDeviceName());
        const inserted = await insertDevices(
            tx,
            product,
            [...wanted].map((deviceName) => ({ deviceName })),
        );
        names.push(...inserted.map((r) => r.deviceName));
    }
    return names;
}
