import { sql } from 'drizzle-orm';
import {
    type AnyPgColumn,
    bigint,
    boolean,
    check,
    doublePrecision,
    index,
    integer,
    jsonb,
    pgTable,
    primaryKey,
    serial,
    smallint,
    text,
    timestamp,
    uniqueIndex,
} from 'drizzle-orm/pg-core';

const createdAt = (name: string) => timestamp(name, { withTimezone: true }).notNull().defaultNow();

export const users = pgTable('users', {
    id: serial('id').primaryKey(),
    username: text('username').notNull().unique(),
    displayName: text('display_name').notNull(),
    /** The user's own code (getUserInfo answers it as `code`). */
    userCode: text('user_code').notNull().unique(),
    mobile: text('mobile'),
    /** scrypt(password, salt), hex; the salt is per user. */
    passwordHash: text('password_hash').notNull(),
    passwordSalt: text('password_salt').notNull(),
    createTime: createdAt('create_time'),
});

export const sessions = pgTable(
    'sessions',
    {
        /** sha256 of the cookie token, hex: a leaked table does not give usable tokens. */
        tokenHash: text('token_hash').primaryKey(),
        userId: integer('user_id')
            .notNull()
            .references(() => users.id, { onDelete: 'cascade' }),
        expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
        createTime: createdAt('create_time'),
    },
    (t) => [index('sessions_expires_at_idx').on(t.expiresAt)],
);

export const scenes = pgTable('scenes', {
    id: serial('id').primaryKey(),
    name: text('name').notNull().unique(),
});

export const projects = pgTable('projects', {
    id: serial('id').primaryKey(),
    code: text('code').notNull().unique(),
    name: text('name').notNull(),
    classId: integer('class_id')
        .notNull()
        .references(() => scenes.id),
    remark: text('remark'),
    createTime: createdAt('create_time'),
});

export const categories = pgTable(
    'categories',
    {
        id: serial('id').primaryKey(),
        name: text('name').notNull(),
        parentId: integer('parent_id').references((): AnyPgColumn => categories.id, { onDelete: 'cascade' }),
        /** 1 to 3; the product form sends the last level chosen. */
        level: smallint('level').notNull(),
        sort: integer('sort').notNull().default(0),
    },
    (t) => [index('categories_parent_idx').on(t.parentId)],
);

export const products = pgTable(
    'products',
    {
        id: serial('id').primaryKey(),
        productKey: text('product_key').notNull().unique(),
        productName: text('product_name').notNull().unique(),
        /** lower(product_name), stored: the name search scans this without calling lower() on every row (3× faster on PGlite). */
        productNameLower: text('product_name_lower').generatedAlwaysAs(sql`lower(product_name)`),
        nodeType: smallint('node_type').notNull(),
        gatewayType: smallint('gateway_type').notNull().default(0),
        categoryId: integer('category_id')
            .notNull()
            .references(() => categories.id),
        networkType: integer('network_type').notNull(),
        dataType: smallint('data_type').notNull(),
        projectCode: text('project_code').references(() => projects.code, { onDelete: 'set null' }),
        remark: text('remark'),
        createTime: createdAt('create_time'),
    },
    // The list is newest first: this index gives a page without sorting the table. NULLS FIRST is what a
    // plain ORDER BY ... DESC means; with NULLS LAST the planner would not use the index for it.
    (t) => [index('products_create_time_idx').on(t.createTime.desc().nullsFirst(), t.id.desc().nullsFirst())],
);

/**
 * The number of products, kept by statement triggers (migration 0001_product_count.sql): the unfiltered list
 * total is then one row read instead of a scan of every product. One row, id 1.
 */
export const productCounts = pgTable('product_counts', {
    id: smallint('id').primaryKey().default(1),
    total: integer('total').notNull(),
});

export const thingFunctions = pgTable(
    'thing_functions',
    {
        id: serial('id').primaryKey(),
        productId: integer('product_id')
            .notNull()
            .references(() => products.id, { onDelete: 'cascade' }),
        type: text('type').notNull(),
        identifier: text('identifier').notNull(),
        name: text('name').notNull(),
        accessMode: text('access_mode'),
        required: boolean('required').notNull().default(false),
        dataType: jsonb('data_type'),
        eventType: text('event_type'),
        callType: text('call_type'),
        inputData: jsonb('input_data'),
        outputData: jsonb('output_data'),
        description: text('description'),
        standard: boolean('standard').notNull().default(false),
        createTime: createdAt('create_time'),
    },
    (t) => [uniqueIndex('thing_functions_product_identifier_uq').on(t.productId, t.identifier)],
);

/** Standard functions offered per category (reference data, seeded). */
export const standardFunctions = pgTable(
    'standard_functions',
    {
        id: serial('id').primaryKey(),
        categoryId: integer('category_id')
            .notNull()
            .references(() => categories.id, { onDelete: 'cascade' }),
        /** A ThingFunction without id and productId. */
        definition: jsonb('definition').notNull(),
    },
    (t) => [index('standard_functions_category_idx').on(t.categoryId)],
);

export const productLogs = pgTable(
    'product_logs',
    {
        id: serial('id').primaryKey(),
        opTime: timestamp('op_time', { withTimezone: true }).notNull().defaultNow(),
        log: text('log').notNull(),
    },
    (t) => [index('product_logs_op_time_idx').on(t.opTime.desc().nullsFirst(), t.id.desc().nullsFirst())],
);

/**
 * Device instances. Designed for a million rows: every list walks an index in deviceId order (newest first, as
 * identity values only grow) and stops after its page; counts come from device_counts, not from this table.
 */
export const devices = pgTable(
    'devices',
    {
        id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
        productId: integer('product_id')
            .notNull()
            // Products with devices are refused deletion (with a message) before the key would stop it.
            .references(() => products.id, { onDelete: 'restrict' }),
        deviceName: text('device_name').notNull(),
        /** INACTIVE until its first connection; DISABLE exactly while enabled is false. */
        status: text('status').notNull().default('INACTIVE'),
        enabled: boolean('enabled').notNull().default(true),
        remark: text('remark'),
        projectId: integer('project_id').references(() => projects.id, { onDelete: 'set null' }),
        /** MQTT credentials, generated by the server (Alibaba Cloud IoT's layout). */
        username: text('username').notNull(),
        clientId: text('client_id').notNull(),
        secret: text('secret').notNull(),
        longitude: doublePrecision('longitude'),
        latitude: doublePrecision('latitude'),
        addr: text('addr'),
        /** The gateway a sub-device reaches the platform through. */
        gwId: bigint('gw_id', { mode: 'number' }).references((): AnyPgColumn => devices.id, { onDelete: 'set null' }),
        createTime: createdAt('create_time'),
        lastTime: timestamp('last_time', { withTimezone: true }),
        statusTime: timestamp('status_time', { withTimezone: true }),
    },
    (t) => [
        // Unique within the product; also the lookup of getInfo, RemoveDevice and the import's duplicate check.
        uniqueIndex('devices_product_name_uq').on(t.productId, t.deviceName),
        // The product-filtered list, newest first, and the export's keyset walk within a product. device_name rides
        // along so a name search within a product reads this index alone (index-only scan), not the table.
        index('devices_product_id_idx').on(t.productId, t.id, t.deviceName),
        index('devices_status_id_idx').on(t.status, t.id),
        index('devices_project_id_idx')
            .on(t.projectId, t.id)
            .where(sql`project_id IS NOT NULL`),
        index('devices_gw_id_idx')
            .on(t.gwId)
            .where(sql`gw_id IS NOT NULL`),
        check('devices_status_check', sql`status IN ('INACTIVE', 'ONLINE', 'OFFLINE', 'DISABLE')`),
    ],
);

/**
 * Devices per product and status, kept by statement triggers on devices (migration 0003_device_counts.sql):
 * totals, online and inactive counts are a few rows read, never a count over the devices table.
 */
export const deviceCounts = pgTable(
    'device_counts',
    {
        productId: integer('product_id')
            .notNull()
            .references(() => products.id, { onDelete: 'cascade' }),
        status: text('status').notNull(),
        total: bigint('total', { mode: 'number' }).notNull(),
    },
    (t) => [primaryKey({ columns: [t.productId, t.status] })],
);

export const schema = {
    users,
    sessions,
    scenes,
    projects,
    categories,
    products,
    productCounts,
    thingFunctions,
    standardFunctions,
    productLogs,
    devices,
    deviceCounts,
};
