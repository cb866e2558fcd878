import { sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { categories, productLogs, products, projects, scenes, standardFunctions, thingFunctions } from '../db/schema';
import { DEMO_LOGS, DEMO_PRODUCTS, DEMO_PROJECTS } from './demo';
import type { DemoContext } from './context';
import { insertDemoDashboard } from './dashboard';
import { insertDemoDevices } from './devices';
import { insertDemoGroups } from './groups';
import { insertDemoTags } from './tags';
import { insertLiveDemo } from './live';
import { insertDemoTelemetry } from './telemetry';
import { CATEGORIES, SCENES, type CategorySeed } from './reference';

export interface SeedResult {
    /** False when the database already had data: seeding never runs twice. */
    seeded: boolean;
    demo: boolean;
    /** The live demo's simulations, rules and edge instance were written (start them: startLiveDemo). */
    live: boolean;
}

const DAY = 24 * 60 * 60 * 1000;

async function insertCategories(
    tx: Tx,
    nodes: CategorySeed[],
    parentId: number | null,
    level: number,
    path: string[],
    ids: Map<string, number>,
) {
    for (const [sort, node] of nodes.entries()) {
        const [row] = await tx
            .insert(categories)
            .values({ name: node.name, parentId, level, sort })
            .returning({ id: categories.id });
        const here = [...path, node.name];
        ids.set(here.join('/'), row.id);
        if (node.standard?.length) {
            await tx
                .insert(standardFunctions)
                .values(node.standard.map((definition) => ({ categoryId: row.id, definition })));
        }
        if (node.children) await insertCategories(tx, node.children, row.id, level + 1, here, ids);
    }
}

async function insertDemo(
    tx: Tx,
    categoryIds: Map<string, number>,
    sceneIds: Map<string, number>,
    now: Date,
    live: boolean,
    camera: boolean,
    port: number,
) {
    const projectRows = await tx
        .insert(projects)
        .values(
            DEMO_PROJECTS.map((p, i) => ({
                code: p.code,
                name: p.name,
                classId: sceneIds.get(p.scene)!,
                remark: p.remark || null,
                createTime: new Date(now.getTime() - (60 - i) * DAY),
            })),
        )
        .returning({ id: projects.id, code: projects.code });
    const productIds = new Map<string, { id: number; productKey: string }>();
    for (const [i, p] of DEMO_PRODUCTS.entries()) {
        const categoryId = categoryIds.get(p.category.join('/'));
        if (!categoryId) throw new Error(`seed: unknown category ${p.category.join('/')}`);
        const productKey = p.productKey;
        const [row] = await tx
            .insert(products)
            .values({
                productKey,
                productName: p.productName,
                nodeType: p.nodeType,
                gatewayType: p.gatewayType,
                categoryId,
                networkType: p.networkType,
                dataType: p.dataType,
                projectCode: p.projectCode,
                remark: p.remark || null,
                // Oldest first, so the list (newest first) shows them in the order written above reversed.
                createTime: new Date(now.getTime() - (DEMO_PRODUCTS.length - i) * DAY),
            })
            .returning({ id: products.id });
        productIds.set(p.productName, { id: row.id, productKey });
        if (p.functions?.length) {
            await tx.insert(thingFunctions).values(
                p.functions.map((f) => ({
                    productId: row.id,
                    type: f.type,
                    identifier: f.identifier,
                    name: f.name,
                    required: f.required,
                    accessMode: f.type === 'property' ? f.accessMode : null,
                    dataType: f.type === 'property' ? f.dataType : null,
                    eventType: f.type === 'event' ? f.eventType : null,
                    callType: f.type === 'service' ? f.callType : null,
                    inputData: f.type === 'service' ? f.inputData : null,
                    outputData: f.type === 'property' ? null : f.outputData,
                })),
            );
        }
    }
    const projectIds = new Map(projectRows.map((r) => [r.code, r.id]));
    const deviceIds = await insertDemoDevices(tx, productIds, projectIds, now);
    const ctx: DemoContext = { tx, now, productIds, projectIds, deviceIds };
    await insertDemoTags(ctx);
    await insertDemoTelemetry(ctx);
    await insertDemoDashboard(ctx);
    await insertDemoGroups(ctx);
    if (live) await insertLiveDemo(ctx, { camera, port });
    await tx
        .insert(productLogs)
        .values(DEMO_LOGS.map((l) => ({ log: l.log, opTime: new Date(now.getTime() - l.daysAgo * DAY) })));
}

/**
 * Fills an empty database in one transaction: reference data always (scenes, the category tree, standard
 * functions), demo content when `demo`, and the live demo (server/seed/live.ts) when `live` too (with a camera
 * when `camera`: ffmpeg is there to play it). A database that already has scenes is left alone, so this is
 * idempotent and never brings back demo rows a user deleted.
 */
export async function seedDatabase(
    db: Db,
    opts: {
        demo: boolean;
        live?: boolean;
        camera?: boolean;
        /** The platform's HTTP port: the live demo's webhook channel is addressed to it (server/seed/webhook.ts). */
        port?: number;
        now?: Date;
    },
): Promise<SeedResult> {
    const now = opts.now ?? new Date();
    return db.transaction(async (tx) => {
        // Two servers starting on one PostgreSQL: the second waits here, then sees the first's rows.
        await tx.execute(sql`select pg_advisory_xact_lock(727274)`);
        const [existing] = await tx.select({ id: scenes.id }).from(scenes).limit(1);
        if (existing) return { seeded: false, demo: false, live: false };
        const sceneRows = await tx
            .insert(scenes)
            .values(SCENES.map((name) => ({ name })))
            .returning();
        const sceneIds = new Map(sceneRows.map((s) => [s.name, s.id]));
        const categoryIds = new Map<string, number>();
        await insertCategories(tx, CATEGORIES, null, 1, [], categoryIds);
        const live = opts.demo && !!opts.live;
        if (opts.demo) await insertDemo(tx, categoryIds, sceneIds, now, live, !!opts.camera, opts.port ?? 8080);
        return { seeded: true, demo: opts.demo, live };
    });
}
