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

/** Roles (migration 0015): menu entries and rights (schemas/rights.ts, docs/roles.md). Ids 1-3 are the built-in ones. */
export const roles = pgTable('roles', {
    id: serial('id').primaryKey(),
    name: text('name').notNull().unique(),
    remark: text('remark'),
    builtin: boolean('builtin').notNull().default(false),
    /** Everything, everywhere: every menu, every right, every project. */
    isAdmin: boolean('is_admin').notNull().default(false),
    /** Menu ids granted; null: every entry but 系统管理. */
    menus: jsonb('menus').$type<string[] | null>(),
    /** Rights granted, `family.action`, `*` standing for any family or action. */
    rights: jsonb('rights').$type<string[]>().notNull().default([]),
    createTime: createdAt('create_time'),
});

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
    roleId: integer('role_id')
        .notNull()
        .default(3)
        .references((): AnyPgColumn => roles.id, { onDelete: 'restrict' }),
    /** A disabled user cannot sign in; their sessions end when disabled. */
    enabled: boolean('enabled').notNull().default(true),
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
        /** A handle for listing and revoking (the token hash never leaves the server). */
        id: serial('id').notNull(),
        address: text('address'),
        userAgent: text('user_agent'),
    },
    (t) => [
        index('sessions_expires_at_idx').on(t.expiresAt),
        uniqueIndex('sessions_id_uq').on(t.id),
        index('sessions_user_id_idx').on(t.userId),
    ],
);

/** Every sign-in attempt on the sign-on page (/safetybutler shows them). */
export const loginHistory = pgTable(
    'login_history',
    {
        id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
        userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
        username: text('username').notNull(),
        address: text('address').notNull(),
        userAgent: text('user_agent'),
        success: boolean('success').notNull(),
        /** 登录成功, 用户名或密码错误, 账号已停用, 登录失败次数过多 */
        result: text('result').notNull(),
        ts: timestamp('ts', { withTimezone: true }).notNull().defaultNow(),
    },
    (t) => [index('login_history_ts_idx').on(t.ts.desc().nullsFirst(), t.id.desc().nullsFirst())],
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
        /** 一型一密 (migration 0034): drawn by the database; shown only behind the product page's 查看. */
        productSecret: text('product_secret')
            .notNull()
            .default(sql`replace(gen_random_uuid()::text, '-', '')`),
        /** 动态注册: a device may fetch its DeviceSecret signed with the ProductSecret (off by default). */
        dynamicRegister: boolean('dynamic_register').notNull().default(false),
        /** 免预注册: dynamic registration may create a device the platform does not have yet (off by default). */
        noPreRegister: boolean('no_pre_register').notNull().default(false),
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

/**
 * A product's data-parsing script (数据解析, migration 0037): the draft as last saved and the version the broker runs
 * (published, null until the first 发布; version counts the publications). Only products of the 透传/自定义 data format
 * (dataType 1) use it.
 */
export const productScripts = pgTable('product_scripts', {
    productId: integer('product_id')
        .primaryKey()
        .references(() => products.id, { onDelete: 'cascade' }),
    draft: text('draft').notNull(),
    draftTime: createdAt('draft_time'),
    published: text('published'),
    publishedTime: timestamp('published_time', { withTimezone: true }),
    version: integer('version').notNull().default(0),
});

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
        /** When dynamic registration handed out its DeviceSecret (a second registration is refused). */
        registeredAt: timestamp('registered_at', { withTimezone: true }),
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

/** Sub-devices a gateway reported it found (thing/list/found, migration 0034), for the operator to add. */
export const foundDevices = pgTable(
    'found_devices',
    {
        id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
        gwId: bigint('gw_id', { mode: 'number' })
            .notNull()
            .references(() => devices.id, { onDelete: 'cascade' }),
        productKey: text('product_key').notNull(),
        deviceName: text('device_name').notNull(),
        foundTime: createdAt('found_time'),
    },
    (t) => [uniqueIndex('found_devices_gw_name_uq').on(t.gwId, t.productKey, t.deviceName)],
);

/** Key → update time (epoch seconds), Alibaba's shadow metadata. */
export type ShadowMetadata = {
    reported: Record<string, { timestamp: number }>;
    desired: Record<string, { timestamp: number }>;
};

/** A device's shadow (设备影子, migration 0035): reported and desired state, their keys' times, the version. */
export const deviceShadows = pgTable('device_shadows', {
    deviceId: bigint('device_id', { mode: 'number' })
        .primaryKey()
        .references(() => devices.id, { onDelete: 'cascade' }),
    reported: jsonb('reported').$type<Record<string, unknown>>().notNull().default({}),
    desired: jsonb('desired').$type<Record<string, unknown>>().notNull().default({}),
    metadata: jsonb('metadata').$type<ShadowMetadata>().notNull().default({ reported: {}, desired: {} }),
    /** Device versions are often epoch milliseconds (Alibaba's SDK sends Date.now()): bigint. */
    version: bigint('version', { mode: 'number' }).notNull().default(0),
    updateTime: createdAt('update_time'),
});

/**
 * Presence history: a row each time a device turns ONLINE or stops being ONLINE, written by a statement trigger on
 * devices (migration 0021_presence_history.sql) whoever changed the status; the report's daily online rate.
 */
export const devicePresence = pgTable(
    'device_presence',
    {
        deviceId: bigint('device_id', { mode: 'number' }).notNull(),
        ts: timestamp('ts', { withTimezone: true }).notNull(),
        online: boolean('online').notNull(),
    },
    (t) => [index('device_presence_device_ts_idx').on(t.deviceId, t.ts), index('device_presence_ts_idx').on(t.ts)],
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

/** Tags on any object; type 2 is a device (SPEC.md). The key `coordinate` holds a device's location as 'lat,lng'. */
export const tags = pgTable(
    'tags',
    {
        id: serial('id').primaryKey(),
        type: smallint('type').notNull(),
        objectId: bigint('object_id', { mode: 'number' }).notNull(),
        key: text('key').notNull(),
        value: text('value').notNull(),
        createTime: createdAt('create_time'),
    },
    (t) => [uniqueIndex('tags_object_key_uq').on(t.type, t.objectId, t.key)],
);

/** Files attached to a device; the bytes live under the files directory as `storedName`. */
export const deviceFiles = pgTable(
    'device_files',
    {
        id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
        deviceId: bigint('device_id', { mode: 'number' })
            .notNull()
            .references(() => devices.id, { onDelete: 'cascade' }),
        fileName: text('file_name').notNull(),
        storedName: text('stored_name').notNull().unique(),
        size: bigint('size', { mode: 'number' }).notNull(),
        contentType: text('content_type'),
        createTime: createdAt('create_time'),
    },
    (t) => [index('device_files_device_idx').on(t.deviceId, t.id.desc().nullsFirst())],
);

/**
 * Every message a device reported or was sent (run status, events, service calls), newest first per device.
 * Built for telemetry volume: one index walk by (device, time) serves each page. Partitioned by UTC day on ts
 * (0026_partitions.sql, server/db/partitions.ts), so a read bounded in time visits only its days.
 */
export const deviceMessages = pgTable(
    'device_messages',
    {
        id: bigint('id', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
        deviceId: bigint('device_id', { mode: 'number' })
            .notNull()
            .references(() => devices.id, { onDelete: 'cascade' }),
        ts: timestamp('ts', { withTimezone: true }).notNull(),
        /** e.g. thing.event.property.post, thing.event.{identifier}.post, thing.service.{identifier} */
        method: text('method').notNull(),
        /** The event or service identifier, when the method names one. */
        identifier: text('identifier'),
        data: jsonb('data').notNull(),
        /**
         * The device's product, copied when the message is written (a device never changes product), so the log
         * query (/log) pages a product's messages on one index instead of visiting each of its devices.
         */
        productId: integer('product_id'),
        /** A QoS 1 message's MQTT packet id and payload CRC-32 (server/mqtt/resend.ts), to know it when resent. */
        resendKey: bigint('resend_key', { mode: 'number' }),
    },
    (t) => [
        // Partitioned by day on ts (0026_partitions.sql): a partitioned table's key must hold the partition key.
        primaryKey({ columns: [t.id, t.ts] }),
        index('device_messages_device_ts_idx').on(t.deviceId, t.ts.desc().nullsFirst(), t.id.desc().nullsFirst()),
        // Time-range reads walk it (0012_message_log.sql adds the partial indexes of /log); retention drops day partitions.
        index('device_messages_ts_idx').on(t.ts),
    ],
);

/**
 * The latest reported values of a device, one row per device (0018_property_rows.sql): `props` maps each identifier to
 * `{ "v": value, "t": epoch ms of its report }`, and a report is merged in with `||`. `desired` maps identifiers to the
 * values the console asked for. The property history is the device's property posts in device_messages.
 */
export const deviceLatest = pgTable('device_latest', {
    deviceId: bigint('device_id', { mode: 'number' })
        .primaryKey()
        .references(() => devices.id, { onDelete: 'cascade' }),
    props: jsonb('props').notNull().default({}),
    desired: jsonb('desired').notNull().default({}),
    /** The newest report merged in. */
    ts: timestamp('ts', { withTimezone: true }).notNull(),
});

/** Project staff: users assigned to a project. */
export const projectUsers = pgTable(
    'project_users',
    {
        id: serial('id').primaryKey(),
        projectId: integer('project_id')
            .notNull()
            .references(() => projects.id, { onDelete: 'cascade' }),
        userId: integer('user_id')
            .notNull()
            .references(() => users.id, { onDelete: 'cascade' }),
        createTime: createdAt('create_time'),
    },
    (t) => [uniqueIndex('project_users_project_user_uq').on(t.projectId, t.userId)],
);

/** Device groups, three levels deep (level 1 roots; level 3 leaves). A group with children cannot be deleted. */
export const deviceGroups = pgTable(
    'device_groups',
    {
        id: serial('id').primaryKey(),
        name: text('name').notNull(),
        parentId: integer('parent_id').references((): AnyPgColumn => deviceGroups.id, { onDelete: 'restrict' }),
        level: smallint('level').notNull(),
        projectCode: text('project_code')
            .notNull()
            .references(() => projects.code, { onDelete: 'cascade', onUpdate: 'cascade' }),
        remark: text('remark'),
        createTime: createdAt('create_time'),
    },
    (t) => [
        index('device_groups_parent_idx').on(t.parentId),
        index('device_groups_create_time_idx').on(t.createTime.desc().nullsFirst(), t.id.desc().nullsFirst()),
        check('device_groups_level_check', sql`level BETWEEN 1 AND 3`),
    ],
);

export const groupDevices = pgTable(
    'group_devices',
    {
        groupId: integer('group_id')
            .notNull()
            .references(() => deviceGroups.id, { onDelete: 'cascade' }),
        deviceId: bigint('device_id', { mode: 'number' })
            .notNull()
            .references(() => devices.id, { onDelete: 'cascade' }),
        createTime: createdAt('create_time'),
    },
    (t) => [primaryKey({ columns: [t.groupId, t.deviceId] }), index('group_devices_device_idx').on(t.deviceId)],
);

/** Alert events (type 1 urgent, 2 severe, 3 general; status 0 pending, 1 handled). Demo-seeded until alert rules. */
export const alertEvents = pgTable(
    'alert_events',
    {
        id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
        type: smallint('type').notNull(),
        status: smallint('status').notNull().default(0),
        projectId: integer('project_id').references(() => projects.id, { onDelete: 'set null' }),
        deviceId: bigint('device_id', { mode: 'number' }).references(() => devices.id, { onDelete: 'set null' }),
        /** Kept as written: the event outlives a deleted device. */
        deviceName: text('device_name').notNull(),
        productKey: text('product_key'),
        params: text('params'),
        ts: timestamp('ts', { withTimezone: true }).notNull().defaultNow(),
        /** The rule that raised it (null for demo and imported alerts); one open alert per (rule, device). */
        ruleId: integer('rule_id').references((): AnyPgColumn => rules.id, { onDelete: 'set null' }),
        /** The values that raised it. */
        input: jsonb('input'),
        handleTime: timestamp('handle_time', { withTimezone: true }),
        remark: text('remark'),
        /** When the rule's condition stopped holding while the alert was still pending (rules that do not auto-clear). */
        recoverTime: timestamp('recover_time', { withTimezone: true }),
        /** When the alert closed (auto-cleared, or handled after recovery); null while open. */
        clearTime: timestamp('clear_time', { withTimezone: true }),
    },
    (t) => [
        index('alert_events_ts_idx').on(t.ts.desc().nullsFirst(), t.id.desc().nullsFirst()),
        index('alert_events_project_ts_idx').on(t.projectId, t.ts.desc().nullsFirst(), t.id.desc().nullsFirst()),
        index('alert_events_pending_idx')
            .on(t.type, t.projectId)
            .where(sql`status = 0`),
        check('alert_events_type_check', sql`type BETWEEN 1 AND 3`),
        uniqueIndex('alert_events_open_uq')
            .on(t.ruleId, t.deviceId)
            .where(sql`clear_time IS NULL AND rule_id IS NOT NULL AND device_id IS NOT NULL`),
        // A device's or a rule's delete finds its events here (0024_fk_indexes.sql), as in every table naming them.
        index('alert_events_device_idx')
            .on(t.deviceId)
            .where(sql`device_id IS NOT NULL`),
        index('alert_events_rule_idx')
            .on(t.ruleId)
            .where(sql`rule_id IS NOT NULL`),
    ],
);

/**
 * Rules (server/rules/): scene linkage (type 1, /ruleEngine) and alert rules (type 2, /api/alert-rule/*). A rule
 * watches one product (optionally one of its devices); triggers, conditions and actions are rows kept as JSON lists,
 * each row with its own id so the console can delete one (docs/rules.md).
 */
export const rules = pgTable(
    'rules',
    {
        id: serial('id').primaryKey(),
        name: text('name').notNull(),
        /** 1 scene linkage, 2 alert rule. */
        type: smallint('type').notNull().default(1),
        projectId: integer('project_id').references(() => projects.id, { onDelete: 'set null' }),
        productId: integer('product_id')
            .notNull()
            .references(() => products.id, { onDelete: 'cascade' }),
        /** One device of the product, or null: every device of it. */
        deviceId: bigint('device_id', { mode: 'number' }).references(() => devices.id, { onDelete: 'cascade' }),
        enabled: boolean('enabled').notNull().default(false),
        description: text('description'),
        triggers: jsonb('triggers').notNull().default([]),
        /** 'all' or 'any' of the conditions. */
        match: text('match').notNull().default('all'),
        conditions: jsonb('conditions').notNull().default([]),
        /** The conditions must hold this long before the actions run (0: at once). */
        durationSeconds: integer('duration_seconds').notNull().default(0),
        /** { start: 'HH:mm', end: 'HH:mm' } in the server's zone, or null: any time. */
        timeWindow: jsonb('time_window'),
        actions: jsonb('actions').notNull().default([]),
        /** Alerts it raised close by themselves once the condition stops holding (else they stay until handled). */
        autoClear: boolean('auto_clear').notNull().default(true),
        createTime: createdAt('create_time'),
        updateTime: createdAt('update_time'),
    },
    (t) => [
        index('rules_product_idx').on(t.productId),
        index('rules_project_idx').on(t.projectId),
        index('rules_device_idx')
            .on(t.deviceId)
            .where(sql`device_id IS NOT NULL`),
        check('rules_type_check', sql`type IN (1, 2)`),
        check('rules_match_check', sql`match IN ('all', 'any')`),
    ],
);

/** The rule journal: every firing, its input and each action's result (kept LOG_RETENTION_DAYS). */
export const ruleLogs = pgTable(
    'rule_logs',
    {
        id: bigint('id', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
        ruleId: integer('rule_id').references(() => rules.id, { onDelete: 'set null' }),
        ruleName: text('rule_name').notNull(),
        projectId: integer('project_id'),
        deviceId: bigint('device_id', { mode: 'number' }),
        deviceName: text('device_name'),
        productKey: text('product_key'),
        /** property, event, status, schedule. */
        triggerType: text('trigger_type').notNull(),
        input: jsonb('input'),
        /** [{ type, ok, message }] per action, in order. */
        results: jsonb('results').notNull().default([]),
        success: boolean('success').notNull(),
        ts: createdAt('ts'),
    },
    (t) => [
        // Partitioned by day on ts (0026_partitions.sql): a partitioned table's key must hold the partition key.
        primaryKey({ columns: [t.id, t.ts] }),
        index('rule_logs_ts_idx').on(t.ts.desc(), t.id.desc()),
        index('rule_logs_rule_ts_idx').on(t.ruleId, t.ts.desc()),
    ],
);

/**
 * A schedule tick claimed by one server process (docs/rules.md "Several processes"): the process whose insert of
 * (rule, tick) succeeds runs it, the others skip it. Rows older than a day are swept.
 */
export const ruleTicks = pgTable(
    'rule_ticks',
    {
        ruleId: integer('rule_id')
            .notNull()
            .references(() => rules.id, { onDelete: 'cascade' }),
        /** The tick's scheduled time (to the second). */
        tick: timestamp('tick', { withTimezone: true }).notNull(),
    },
    (t) => [primaryKey({ columns: [t.ruleId, t.tick] })],
);

/**
 * Since when a rule's conditions have held for a device, and whether it fired (docs/rules.md "Durations"): what a
 * duration ("above 80 for 5 minutes") needs to keep counting over a restart. Removed when the conditions stop holding.
 */
export const ruleHolds = pgTable(
    'rule_holds',
    {
        ruleId: integer('rule_id')
            .notNull()
            .references(() => rules.id, { onDelete: 'cascade' }),
        deviceId: bigint('device_id', { mode: 'number' })
            .notNull()
            .references(() => devices.id, { onDelete: 'cascade' }),
        since: timestamp('since', { withTimezone: true }).notNull(),
        fired: boolean('fired').notNull().default(false),
    },
    (t) => [primaryKey({ columns: [t.ruleId, t.deviceId] }), index('rule_holds_device_idx').on(t.deviceId)],
);

/** Where notifications go: a webhook (plain, DingTalk or WeCom robot) or e-mail over SMTP. */
export const notifyChannels = pgTable(
    'notify_channels',
    {
        id: serial('id').primaryKey(),
        name: text('name').notNull(),
        /** webhook, dingtalk, wecom, email. */
        type: text('type').notNull(),
        /** webhook: { url, bodyTemplate }; email: { host, port, secure, user, pass, from, to }. */
        config: jsonb('config').notNull().default({}),
        createTime: createdAt('create_time'),
    },
    () => [check('notify_channels_type_check', sql`type IN ('webhook', 'dingtalk', 'wecom', 'email')`)],
);

/** Each notification sent (the log query's 告警消息 tab), with every attempt. */
export const notifications = pgTable(
    'notifications',
    {
        id: bigint('id', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
        channelId: integer('channel_id').references(() => notifyChannels.id, { onDelete: 'set null' }),
        ruleId: integer('rule_id').references(() => rules.id, { onDelete: 'set null' }),
        alertId: bigint('alert_id', { mode: 'number' }),
        productKey: text('product_key'),
        deviceName: text('device_name'),
        /** The rule's name (SPEC's "app name"). */
        appName: text('app_name').notNull(),
        notifyType: text('notify_type').notNull(),
        /** 告警通知 (alert) or 场景联动 (scene linkage). */
        messageType: text('message_type').notNull(),
        recipient: text('recipient').notNull(),
        content: text('content').notNull(),
        /** pending, sent, failed. */
        status: text('status').notNull().default('pending'),
        /** [{ time, ok, status?, error? }] one per attempt. */
        attempts: jsonb('attempts').notNull().default([]),
        ts: createdAt('ts'),
    },
    (t) => [
        // Partitioned by day on ts (0026_partitions.sql): a partitioned table's key must hold the partition key.
        primaryKey({ columns: [t.id, t.ts] }),
        index('notifications_ts_idx').on(t.ts.desc(), t.id.desc()),
        index('notifications_product_ts_idx').on(t.productKey, t.ts.desc()),
        index('notifications_rule_idx')
            .on(t.ruleId)
            .where(sql`rule_id IS NOT NULL`),
    ],
);

/**
 * Device simulations (/monitor/imitate): simulated devices of one product signing in through the platform's own
 * broker with their own secrets and reporting values from the thing model every interval (server/simulation/).
 * `running` is what the simulation should be doing: running ones resume when the server starts.
 */
export const simulations = pgTable(
    'simulations',
    {
        id: serial('id').primaryKey(),
        productId: integer('product_id')
            .notNull()
            .references(() => products.id, { onDelete: 'cascade' }),
        intervalSeconds: integer('interval_seconds').notNull(),
        /** random: values drawn within each property's range; fixed: `fixed_values` by identifier. */
        mode: text('mode').notNull(),
        fixedValues: jsonb('fixed_values').notNull().default({}),
        /** Also post one of the thing model's events each interval. */
        events: boolean('events').notNull().default(false),
        running: boolean('running').notNull().default(false),
        /** Messages published, flushed from the simulator every few seconds and on stop. */
        messagesSent: bigint('messages_sent', { mode: 'number' }).notNull().default(0),
        createTime: createdAt('create_time'),
        startTime: timestamp('start_time', { withTimezone: true }),
        stopTime: timestamp('stop_time', { withTimezone: true }),
        /** The cluster member running it (server/cluster/simulations.ts); NULL in one process. */
        nodeId: text('node_id'),
    },
    (t) => [
        index('simulations_product_idx').on(t.productId),
        check('simulations_interval_check', sql`interval_seconds BETWEEN 1 AND 3600`),
        check('simulations_mode_check', sql`mode IN ('random', 'fixed')`),
    ],
);

/** The devices a simulation runs, in the order chosen (a deleted device leaves its simulations). */
export const simulationDevices = pgTable(
    'simulation_devices',
    {
        simulationId: integer('simulation_id')
            .notNull()
            .references(() => simulations.id, { onDelete: 'cascade' }),
        deviceId: bigint('device_id', { mode: 'number' })
            .notNull()
            .references(() => devices.id, { onDelete: 'cascade' }),
        position: integer('position').notNull(),
    },
    (t) => [
        primaryKey({ columns: [t.simulationId, t.deviceId] }),
        index('simulation_devices_device_idx').on(t.deviceId),
    ],
);

/**
 * Server-side subscription (/subscription, AMQP 1.0 like Alibaba Cloud IoT's): consumer groups of a project. A group
 * named 'default' exists in every project from its creation (trigger in 0013_amqp.sql). `dropped` counts backlog
 * messages dropped by the bounds (AMQP_BACKLOG_MAX / AMQP_BACKLOG_HOURS) or cleared with 清空堆积.
 */
export const consumerGroups = pgTable(
    'consumer_groups',
    {
        id: serial('id').primaryKey(),
        projectCode: text('project_code')
            .notNull()
            .references(() => projects.code, { onDelete: 'cascade', onUpdate: 'cascade' }),
        name: text('name').notNull(),
        dropped: bigint('dropped', { mode: 'number' }).notNull().default(0),
        createTime: createdAt('create_time'),
    },
    (t) => [
        uniqueIndex('consumer_groups_project_name_uq').on(t.projectCode, t.name),
        index('consumer_groups_create_time_idx').on(t.createTime.desc(), t.id.desc()),
    ],
);

/** One subscription per product: its message types (only 'post') go to its consumer groups. */
export const subscriptions = pgTable(
    'subscriptions',
    {
        id: serial('id').primaryKey(),
        productId: integer('product_id')
            .notNull()
            .references(() => products.id, { onDelete: 'cascade' }),
        projectCode: text('project_code')
            .notNull()
            .references(() => projects.code, { onDelete: 'cascade', onUpdate: 'cascade' }),
        /** Comma-separated message types; only 'post' (device reported property messages). */
        msgTypes: text('msg_types').notNull().default('post'),
        createTime: createdAt('create_time'),
    },
    (t) => [
        uniqueIndex('subscriptions_product_uq').on(t.productId),
        index('subscriptions_create_time_idx').on(t.createTime.desc(), t.id.desc()),
    ],
);

export const subscriptionGroups = pgTable(
    'subscription_groups',
    {
        subscriptionId: integer('subscription_id')
            .notNull()
            .references(() => subscriptions.id, { onDelete: 'cascade' }),
        groupId: integer('group_id')
            .notNull()
            .references(() => consumerGroups.id, { onDelete: 'cascade' }),
    },
    (t) => [
        primaryKey({ columns: [t.subscriptionId, t.groupId] }),
        index('subscription_groups_group_idx').on(t.groupId),
    ],
);

/**
 * A user's AccessKey pairs: AMQP consumers sign in with HMAC(secret, ...), so the secret is stored as it is (it
 * must be recoverable to verify the signature) and answered only once, by the create call.
 */
export const accessKeys = pgTable(
    'access_keys',
    {
        id: serial('id').primaryKey(),
        userId: integer('user_id')
            .notNull()
            .references(() => users.id, { onDelete: 'cascade' }),
        accessKey: text('access_key').notNull().unique(),
        accessSecret: text('access_secret').notNull(),
        enabled: boolean('enabled').notNull().default(true),
        createTime: createdAt('create_time'),
        lastUsedTime: timestamp('last_used_time', { withTimezone: true }),
    },
    (t) => [index('access_keys_user_idx').on(t.userId, t.id)],
);

/**
 * The durable delivery queue of each consumer group (at least once). A row is claimed by one server process
 * (`owner`, until `lease_until`) while its consumers hold it, and deleted when a consumer accepts it.
 */
export const amqpQueue = pgTable(
    'amqp_queue',
    {
        id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
        groupId: integer('group_id')
            .notNull()
            .references(() => consumerGroups.id, { onDelete: 'cascade' }),
        deviceId: bigint('device_id', { mode: 'number' }).notNull(),
        messageId: text('message_id').notNull(),
        topic: text('topic').notNull(),
        generateTime: bigint('generate_time', { mode: 'number' }).notNull(),
        payload: text('payload').notNull(),
        createTime: createdAt('create_time'),
        owner: text('owner'),
        leaseUntil: timestamp('lease_until', { withTimezone: true }),
    },
    (t) => [index('amqp_queue_group_id_idx').on(t.groupId, t.id), index('amqp_queue_create_time_idx').on(t.createTime)],
);

/**
 * Applications on the platform: published (上架) on /appconfig, activated and used on /applymanage; the dashboard
 * counts published apps in use and published activated apps not yet in use (migration 0016).
 */
export const apps = pgTable('apps', {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    company: text('company'),
    /** 0 not activated, 1 activated, 2 disabled */
    activeStatus: smallint('active_status').notNull().default(0),
    /** 1 in use, 0 not */
    useStatus: smallint('use_status').notNull().default(0),
    recentTime: timestamp('recent_time', { withTimezone: true }),
    /** 应用领域: one of the scenes (智慧办公, 智慧城市, 智慧车辆, 工业互联网). */
    domain: text('domain'),
    description: text('description'),
    /** 1 published (已上架), 0 withdrawn (已下架). */
    publishStatus: smallint('publish_status').notNull().default(1),
    createTime: createdAt('create_time'),
});

/** Alarm notifications configured for an app (/applymanage 添加告警): who is told, how, about which level. */
export const appAlarms = pgTable(
    'app_alarms',
    {
        id: serial('id').primaryKey(),
        appId: integer('app_id')
            .notNull()
            .references(() => apps.id, { onDelete: 'cascade' }),
        name: text('name').notNull(),
        /** Alert level notified: 1 urgent, 2 severe, 3 general. */
        level: smallint('level').notNull(),
        /** sms, email or webhook */
        notifyType: text('notify_type').notNull(),
        receiver: text('receiver').notNull(),
        content: text('content'),
        createTime: createdAt('create_time'),
    },
    (t) => [index('app_alarms_app_idx').on(t.appId)],
);

/**
 * Video (camera) devices: a device of a product (devices row, same deviceName rules) plus what a camera needs
 * (SPEC.md "Video device"). The row goes with its device. The password is kept to pull the stream (rtsp) or to check
 * the camera's SIP digest (gb28181); it is never answered back.
 */
export const videoDevices = pgTable(
    'video_devices',
    {
        deviceId: bigint('device_id', { mode: 'number' })
            .primaryKey()
            .references(() => devices.id, { onDelete: 'cascade' }),
        protocol: text('protocol').notNull(),
        host: text('host'),
        port: integer('port'),
        username: text('username'),
        password: text('password'),
        uri: text('uri'),
        /** 1 pushing, 0 stopped (SPEC.md §4). */
        pushing: smallint('pushing').notNull().default(0),
        manufacturer: text('manufacturer'),
        /** GB/T 28181 code parts: device type (kind 1), industry (kind 2), network (kind 3), with their names. */
        tcode: text('tcode'),
        tname: text('tname'),
        icode: text('icode'),
        iname: text('iname'),
        ncode: text('ncode'),
        nname: text('nname'),
        /** Province, city, area: the picked point's adcode at character slices 0-2, 2-4, 4-6. */
        pcode: text('pcode'),
        ccode: text('ccode'),
        acode: text('acode'),
        /** gb28181: the camera's own 20-digit code (its SIP user) and what it has told the platform. */
        gbId: text('gb_id').unique(),
        channels: jsonb('channels').notNull().default([]),
        registerTime: timestamp('register_time', { withTimezone: true }),
        keepaliveTime: timestamp('keepalive_time', { withTimezone: true }),
        /** Where the camera's SIP messages come from (ip:port), for the catalog query. */
        sipContact: text('sip_contact'),
    },
    (t) => [
        index('video_devices_pushing_idx').on(t.pushing, t.deviceId),
        check('video_devices_protocol_check', sql`protocol IN ('rtsp', 'gb28181')`),
        check('video_devices_pushing_check', sql`pushing IN (0, 1)`),
    ],
);

/** Region dictionaries of the video forms by kind: 1 device type, 2 industry, 3 network (GB/T 28181 code parts). */
export const videoDictionary = pgTable(
    'video_dictionary',
    {
        kind: smallint('kind').notNull(),
        code: text('code').notNull(),
        name: text('name').notNull(),
        sort: integer('sort').notNull().default(0),
    },
    (t) => [primaryKey({ columns: [t.kind, t.code] })],
);

/** Edge drivers (Link IoT Edge's drivers): a named, versioned package for one protocol with its config schema. */
export const edgeDrivers = pgTable(
    'edge_drivers',
    {
        id: serial('id').primaryKey(),
        name: text('name').notNull(),
        version: text('version').notNull(),
        /** modbus_tcp, opc_ua, custom (schemas/edge.ts). */
        protocol: text('protocol').notNull(),
        description: text('description'),
        /** A JSON Schema of the configuration each instance gives the driver. */
        configSchema: jsonb('config_schema').notNull().default({}),
        fileName: text('file_name'),
        fileSize: bigint('file_size', { mode: 'number' }),
        /** SHA-256 (hex) of the uploaded package, for the gateway to check what it downloads. */
        fileSha256: text('file_sha256'),
        /** The package's name under FILES_DIR/edge-drivers (generated). */
        storedName: text('stored_name'),
        createTime: createdAt('create_time'),
    },
    (t) => [uniqueIndex('edge_drivers_name_version_uq').on(t.name, t.version)],
);

/** Edge instances: each runs on one gateway device, which signs in over MQTT like any gateway. */
export const edgeInstances = pgTable('edge_instances', {
    id: serial('id').primaryKey(),
    name: text('name').notNull().unique(),
    /** Hardware spec text, e.g. "2核4G". */
    spec: text('spec'),
    gatewayId: bigint('gateway_id', { mode: 'number' })
        .notNull()
        .unique()
        .references(() => devices.id, { onDelete: 'restrict' }),
    remark: text('remark'),
    /** The version of the last deployment document sent (0: never deployed). */
    version: integer('version').notNull().default(0),
    /** 设置: log level, log upload, retention, offline cache and heartbeat (schemas/edge.ts EdgeSettings). */
    settings: jsonb('settings').notNull().default({}),
    createTime: createdAt('create_time'),
});

/** The drivers an instance runs, each with its configuration. */
export const edgeInstanceDrivers = pgTable(
    'edge_instance_drivers',
    {
        instanceId: integer('instance_id')
            .notNull()
            .references(() => edgeInstances.id, { onDelete: 'cascade' }),
        driverId: integer('driver_id')
            .notNull()
            .references(() => edgeDrivers.id, { onDelete: 'restrict' }),
        config: jsonb('config').notNull().default({}),
    },
    (t) => [
        primaryKey({ columns: [t.instanceId, t.driverId] }),
        index('edge_instance_drivers_driver_idx').on(t.driverId),
    ],
);

/** Sub-devices assigned to a driver of an instance (a device runs under one instance). */
export const edgeInstanceDevices = pgTable(
    'edge_instance_devices',
    {
        deviceId: bigint('device_id', { mode: 'number' })
            .primaryKey()
            .references(() => devices.id, { onDelete: 'cascade' }),
        instanceId: integer('instance_id')
            .notNull()
            .references(() => edgeInstances.id, { onDelete: 'cascade' }),
        driverId: integer('driver_id')
            .notNull()
            .references(() => edgeDrivers.id, { onDelete: 'restrict' }),
        config: jsonb('config').notNull().default({}),
    },
    (t) => [index('edge_instance_devices_instance_idx').on(t.instanceId, t.driverId)],
);

/** 场景联动: platform rules (scene linkage) an instance runs at the edge. */
export const edgeInstanceRules = pgTable(
    'edge_instance_rules',
    {
        instanceId: integer('instance_id')
            .notNull()
            .references(() => edgeInstances.id, { onDelete: 'cascade' }),
        ruleId: integer('rule_id')
            .notNull()
            .references(() => rules.id, { onDelete: 'cascade' }),
    },
    (t) => [primaryKey({ columns: [t.instanceId, t.ruleId] }), index('edge_instance_rules_rule_idx').on(t.ruleId)],
);

/** 函数计算: functions an instance runs (on a trigger or long-running). */
export const edgeFunctions = pgTable(
    'edge_functions',
    {
        id: serial('id').primaryKey(),
        instanceId: integer('instance_id')
            .notNull()
            .references(() => edgeInstances.id, { onDelete: 'cascade' }),
        name: text('name').notNull(),
        /** nodejs20, python3 (schemas/edge.ts EDGE_RUNTIMES). */
        runtime: text('runtime').notNull(),
        handler: text('handler').notNull(),
        code: text('code').notNull().default(''),
        memoryMb: integer('memory_mb').notNull(),
        timeoutSeconds: integer('timeout_seconds').notNull(),
        /** trigger (runs on a message) or long (long-running). */
        mode: text('mode').notNull(),
        env: jsonb('env').notNull().default({}),
        description: text('description'),
        createTime: createdAt('create_time'),
    },
    (t) => [uniqueIndex('edge_functions_instance_name_uq').on(t.instanceId, t.name)],
);

/** 流数据分析: stream-analysis jobs (a source topic filter, a window and a SQL-like statement, an output). */
export const edgeStreams = pgTable(
    'edge_streams',
    {
        id: serial('id').primaryKey(),
        instanceId: integer('instance_id')
            .notNull()
            .references(() => edgeInstances.id, { onDelete: 'cascade' }),
        name: text('name').notNull(),
        sourceTopic: text('source_topic').notNull(),
        /** none, tumbling, sliding (schemas/edge.ts EDGE_WINDOWS). */
        windowType: text('window_type').notNull(),
        windowSeconds: integer('window_seconds').notNull(),
        statement: text('statement').notNull(),
        /** cloud (IoT Hub), function, stream. */
        targetType: text('target_type').notNull(),
        targetName: text('target_name'),
        description: text('description'),
        createTime: createdAt('create_time'),
    },
    (t) => [uniqueIndex('edge_streams_instance_name_uq').on(t.instanceId, t.name)],
);

/** 消息路由: routes of messages on the gateway, from a source through a topic filter to a target. */
export const edgeRoutes = pgTable(
    'edge_routes',
    {
        id: serial('id').primaryKey(),
        instanceId: integer('instance_id')
            .notNull()
            .references(() => edgeInstances.id, { onDelete: 'cascade' }),
        /** device, allDevices, function, stream (schemas/edge.ts ROUTE_SOURCES). */
        sourceType: text('source_type').notNull(),
        sourceName: text('source_name'),
        topicFilter: text('topic_filter').notNull(),
        /** cloud, function, stream. */
        targetType: text('target_type').notNull(),
        targetName: text('target_name'),
        qos: smallint('qos').notNull(),
        createTime: createdAt('create_time'),
    },
    (t) => [index('edge_routes_instance_idx').on(t.instanceId)],
);

/** Each deployment: the versioned document sent to the gateway and its answer. */
export const edgeDeployments = pgTable(
    'edge_deployments',
    {
        id: serial('id').primaryKey(),
        instanceId: integer('instance_id')
            .notNull()
            .references(() => edgeInstances.id, { onDelete: 'cascade' }),
        version: integer('version').notNull(),
        document: jsonb('document').notNull(),
        /** pending (sent, no answer yet), success, failed, offline (the gateway was not connected). */
        status: text('status').notNull(),
        message: text('message'),
        createTime: createdAt('create_time'),
        answerTime: timestamp('answer_time', { withTimezone: true }),
    },
    (t) => [uniqueIndex('edge_deployments_instance_version_uq').on(t.instanceId, t.version)],
);

export const schema = {
    roles,
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
    foundDevices,
    deviceShadows,
    deviceCounts,
    tags,
    deviceFiles,
    deviceMessages,
    deviceLatest,
    projectUsers,
    deviceGroups,
    groupDevices,
    alertEvents,
    apps,
    loginHistory,
    appAlarms,
    simulations,
    simulationDevices,
    consumerGroups,
    subscriptions,
    subscriptionGroups,
    accessKeys,
    amqpQueue,
    rules,
    ruleLogs,
    ruleTicks,
    ruleHolds,
    notifyChannels,
    notifications,
    videoDevices,
    videoDictionary,
    edgeDrivers,
    edgeInstances,
    edgeInstanceDrivers,
    edgeInstanceDevices,
    edgeDeployments,
    edgeInstanceRules,
    edgeFunctions,
    edgeStreams,
    edgeRoutes,
};

/**
 * OTA firmware packages (issue 27, docs/ota.md): one version of one module of a product's firmware. The file is kept
 * under FILES_DIR/ota by a generated name; its MD5 and SHA-256 are computed while it streams in.
 */
export const otaPackages = pgTable(
    'ota_packages',
    {
        id: serial('id').primaryKey(),
        name: text('name').notNull(),
        productId: integer('product_id')
            .notNull()
            .references(() => products.id, { onDelete: 'cascade' }),
        module: text('module').notNull().default('default'),
        version: text('version').notNull(),
        /** The versions it upgrades from ([]: any). */
        sourceVersions: jsonb('source_versions').$type<string[]>().notNull().default([]),
        /** MD5 or SHA256: what the device is told to check. */
        signMethod: text('sign_method').notNull(),
        fileName: text('file_name').notNull(),
        storedName: text('stored_name').notNull(),
        size: bigint('size', { mode: 'number' }).notNull(),
        md5: text('md5').notNull(),
        sha256: text('sha256').notNull(),
        description: text('description'),
        /** Set once a verification batch succeeded on every device it reached. */
        verified: boolean('verified').notNull().default(false),
        createTime: createdAt('create_time'),
    },
    (t) => [uniqueIndex('ota_packages_product_module_version_uq').on(t.productId, t.module, t.version)],
);

/** A verification (kind verify) or an upgrade batch (kind batch) of one package. */
export const otaBatches = pgTable(
    'ota_batches',
    {
        id: serial('id').primaryKey(),
        packageId: integer('package_id')
            .notNull()
            .references(() => otaPackages.id, { onDelete: 'cascade' }),
        kind: text('kind').notNull(),
        /** devices, group, project, product. */
        scope: text('scope').notNull(),
        /** The chosen device ids (scope devices), the group id or the project id. */
        scopeIds: jsonb('scope_ids').$type<number[]>().notNull().default([]),
        /** Only devices on these versions of the module ([]: any version). */
        sourceVersions: jsonb('source_versions').$type<string[]>().notNull().default([]),
        /** Dynamic: devices matching later (new, or informing a source version) are added while it runs. */
        dynamic: boolean('dynamic').notNull().default(false),
        startTime: timestamp('start_time', { withTimezone: true }),
        endTime: timestamp('end_time', { withTimezone: true }),
        /** At most this many pushes per minute (null: no limit). */
        ratePerMinute: integer('rate_per_minute'),
        timeoutMinutes: integer('timeout_minutes').notNull(),
        retries: integer('retries').notNull().default(0),
        /** running, done, cancelled. */
        status: text('status').notNull().default('running'),
        createTime: createdAt('create_time'),
    },
    (t) => [index('ota_batches_package_idx').on(t.packageId), index('ota_batches_status_idx').on(t.status)],
);

/** One device in one batch: its state (pending 待推送 … cancelled 已取消), step and reason. */
export const otaTasks = pgTable(
    'ota_tasks',
    {
        id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
        batchId: integer('batch_id')
            .notNull()
            .references(() => otaBatches.id, { onDelete: 'cascade' }),
        deviceId: bigint('device_id', { mode: 'number' })
            .notNull()
            .references(() => devices.id, { onDelete: 'cascade' }),
        state: text('state').notNull().default('pending'),
        step: integer('step'),
        reason: text('reason'),
        /** Pushes so far (the first and each retry). */
        attempts: integer('attempts').notNull().default(0),
        /** The version the device had when it was chosen. */
        fromVersion: text('from_version'),
        pushedAt: timestamp('pushed_at', { withTimezone: true }),
        updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    },
    (t) => [
        uniqueIndex('ota_tasks_batch_device_uq').on(t.batchId, t.deviceId),
        index('ota_tasks_batch_state_idx').on(t.batchId, t.state, t.id),
        index('ota_tasks_device_idx').on(t.deviceId, t.state),
        check(
            'ota_tasks_state_check',
            sql`state IN ('pending', 'pushed', 'upgrading', 'succeeded', 'failed', 'cancelled')`,
        ),
    ],
);

/** Each device's firmware version per module, as it last informed. */
export const otaModules = pgTable(
    'ota_modules',
    {
        deviceId: bigint('device_id', { mode: 'number' })
            .notNull()
            .references(() => devices.id, { onDelete: 'cascade' }),
        module: text('module').notNull(),
        version: text('version').notNull(),
        updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    },
    (t) => [primaryKey({ columns: [t.deviceId, t.module] })],
);

/** The key that signs download URLs: made once per database, so every process of one platform agrees. */
export const otaSecret = pgTable('ota_secret', {
    id: smallint('id').primaryKey(),
    secret: text('secret').notNull(),
});

/**
 * Remote configuration (远程配置, migration 0036, docs/device-access.md): each saved configuration file of a product,
 * numbered per product; the newest is the current one (a restore saves an old one's content as a new version). The
 * bytes a device downloads are `content` in UTF-8, of `size` bytes and SHA-256 `sha256`; `configId` is what the
 * device is told (Alibaba's configId) and what its signed download URL names.
 */
export const remoteConfigVersions = pgTable(
    'remote_config_versions',
    {
        id: serial('id').primaryKey(),
        productId: integer('product_id')
            .notNull()
            .references(() => products.id, { onDelete: 'cascade' }),
        version: integer('version').notNull(),
        configId: text('config_id').notNull().unique(),
        /** json or text. */
        format: text('format').notNull(),
        content: text('content').notNull(),
        size: integer('size').notNull(),
        sha256: text('sha256').notNull(),
        remark: text('remark'),
        /** The version whose content a restore copied (null: written). */
        restoredFrom: integer('restored_from'),
        createTime: createdAt('create_time'),
    },
    (t) => [
        uniqueIndex('remote_config_versions_product_version_uq').on(t.productId, t.version),
        check('remote_config_versions_format_check', sql`format IN ('json', 'text')`),
    ],
);

/** A push (批量推送) of one version to the devices of a product, all of them or one group's. */
export const remoteConfigPushes = pgTable(
    'remote_config_pushes',
    {
        id: serial('id').primaryKey(),
        productId: integer('product_id')
            .notNull()
            .references(() => products.id, { onDelete: 'cascade' }),
        versionId: integer('version_id')
            .notNull()
            .references(() => remoteConfigVersions.id, { onDelete: 'cascade' }),
        /** all or group. */
        scope: text('scope').notNull(),
        /** The group as it was named when pushed (the push outlives the group). */
        groupId: integer('group_id'),
        groupName: text('group_name'),
        total: integer('total').notNull(),
        createTime: createdAt('create_time'),
    },
    (t) => [index('remote_config_pushes_product_idx').on(t.productId, t.id)],
);

/** Each device of a push: pushing (sent, no answer yet), succeeded / failed (its push_reply's code), offline (not sent). */
export const remoteConfigPushDevices = pgTable(
    'remote_config_push_devices',
    {
        pushId: integer('push_id')
            .notNull()
            .references(() => remoteConfigPushes.id, { onDelete: 'cascade' }),
        deviceId: bigint('device_id', { mode: 'number' })
            .notNull()
            .references(() => devices.id, { onDelete: 'cascade' }),
        deviceName: text('device_name').notNull(),
        /** The Alink id of the push the device was sent; its push_reply names it. */
        messageId: text('message_id').notNull(),
        state: text('state').notNull(),
        code: integer('code'),
        message: text('message'),
        repliedAt: timestamp('replied_at', { withTimezone: true }),
    },
    (t) => [
        primaryKey({ columns: [t.pushId, t.deviceId] }),
        index('remote_config_push_devices_reply_idx').on(t.deviceId, t.messageId),
        check('remote_config_push_devices_state_check', sql`state IN ('pushing', 'succeeded', 'failed', 'offline')`),
    ],
);

export * from './schemaForward';
