import {
    bigint,
    bigserial,
    boolean,
    index,
    integer,
    jsonb,
    pgTable,
    serial,
    text,
    timestamp,
    uniqueIndex,
} from 'drizzle-orm/pg-core';
import { projects } from './schema';

/**
 * Data forwarding (数据流转, migration 0038, docs/forwarding.md). The message store is the outbox: a route keeps the
 * id of the last device message it handled (`position`) and moves it on only when its destination acknowledged
 * everything before it, so a selected message is kept (in device_messages) until it was delivered or dropped.
 */

const stamp = (name: string) => timestamp(name, { withTimezone: true }).notNull().defaultNow();

/** Where flows send: a kind (server/forward/destinations) and its configuration; secrets encrypted (secrets.ts). */
export const forwardDestinations = pgTable(
    'forward_destinations',
    {
        id: serial('id').primaryKey(),
        projectId: integer('project_id')
            .notNull()
            .references(() => projects.id, { onDelete: 'cascade' }),
        name: text('name').notNull(),
        kind: text('kind').notNull(),
        /** The configuration without its secret fields. */
        config: jsonb('config').notNull(),
        /** The secret fields, JSON encrypted with AES-256-GCM (server/forward/secrets.ts); null when none. */
        secrets: text('secrets'),
        remark: text('remark'),
        createTime: stamp('create_time'),
        updateTime: stamp('update_time'),
    },
    (t) => [uniqueIndex('forward_destinations_project_name_uq').on(t.projectId, t.name)],
);

/** A flow: its SQL statement (server/forward/sql) and whether it runs. */
export const forwardFlows = pgTable(
    'forward_flows',
    {
        id: serial('id').primaryKey(),
        projectId: integer('project_id')
            .notNull()
            .references(() => projects.id, { onDelete: 'cascade' }),
        name: text('name').notNull(),
        sql: text('sql').notNull(),
        enabled: boolean('enabled').notNull().default(false),
        remark: text('remark'),
        createTime: stamp('create_time'),
        updateTime: stamp('update_time'),
    },
    (t) => [uniqueIndex('forward_flows_project_name_uq').on(t.projectId, t.name)],
);

/** One destination of a flow: how far it got in device_messages, who sends it now, and its figures. */
export const forwardRoutes = pgTable(
    'forward_routes',
    {
        id: serial('id').primaryKey(),
        flowId: integer('flow_id')
            .notNull()
            .references(() => forwardFlows.id, { onDelete: 'cascade' }),
        destinationId: integer('destination_id')
            .notNull()
            .references(() => forwardDestinations.id, { onDelete: 'restrict' }),
        /** The id of the last device message handled (sent, not selected, dead-lettered or dropped). */
        position: bigint('position', { mode: 'number' }).notNull().default(0),
        /** The process sending this route, until lease_until (server/forward/lease.ts). */
        owner: text('owner'),
        leaseUntil: timestamp('lease_until', { withTimezone: true }),
        /** Messages the flow's SQL selected up to the position (moved with it). */
        selected: bigint('selected', { mode: 'number' }).notNull().default(0),
        sent: bigint('sent', { mode: 'number' }).notNull().default(0),
        failed: bigint('failed', { mode: 'number' }).notNull().default(0),
        /** Messages skipped because the backlog exceeded its bounds (FORWARD_BACKLOG_MAX, FORWARD_BACKLOG_HOURS). */
        dropped: bigint('dropped', { mode: 'number' }).notNull().default(0),
        dead: bigint('dead', { mode: 'number' }).notNull().default(0),
        lastError: text('last_error'),
        lastErrorTime: timestamp('last_error_time', { withTimezone: true }),
    },
    (t) => [
        uniqueIndex('forward_routes_flow_destination_uq').on(t.flowId, t.destinationId),
        index('forward_routes_destination_idx').on(t.destinationId),
    ],
);

/** A record a route gave up on after FORWARD_MAX_ATTEMPTS failures: 重新投递 sends it again. */
export const forwardDeadLetters = pgTable(
    'forward_dead_letters',
    {
        id: bigserial('id', { mode: 'number' }).primaryKey(),
        routeId: integer('route_id')
            .notNull()
            .references(() => forwardRoutes.id, { onDelete: 'cascade' }),
        messageId: bigint('message_id', { mode: 'number' }).notNull(),
        /** The ForwardRecord as it was to be sent. */
        record: jsonb('record').notNull(),
        error: text('error').notNull(),
        attempts: integer('attempts').notNull(),
        createTime: stamp('create_time'),
    },
    (t) => [index('forward_dead_letters_route_idx').on(t.routeId, t.id)],
);
