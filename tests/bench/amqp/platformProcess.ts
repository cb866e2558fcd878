/**
 * The platform in a process of its own for `npm run bench -- amqp`: an in-memory PGlite with the demo seed, DEVICES
 * devices of the demo lamp product, the MQTT broker and the AMQP endpoint on free ports, a consumer group subscribed
 * to the lamps and an AccessKey. Prints one JSON line `{ mqttPort, amqpPort, groupId, accessKey, accessSecret,
 * devices: [[productKey, deviceName, secret], ...] }`, then answers on stdin: `fill N` (N messages straight into the
 * group's backlog, answered `{ backlog }`), `stats` (`{ backlog, rss }`).
 */
import { sql } from 'drizzle-orm';
import { createAmqpService } from '../../../server/amqp/service';
import { openDatabase } from '../../../server/db/client';
import { accessKeys, consumerGroups, subscriptionGroups, subscriptions, users } from '../../../server/db/schema';
import { createBroker } from '../../../server/mqtt/broker';
import { answerCommands, seedBenchLamps } from '../harness';
import { ensureAdmin } from '../../../server/sso/users';

const count = Number(process.env.DEVICES ?? 200);
const handle = await openDatabase({});
const db = handle.db;
await ensureAdmin(db, 'Bench_Pass1');
const { lamp, devices: benchDevices } = await seedBenchLamps(db, count);
const [group] = await db
    .insert(consumerGroups)
    .values({ projectCode: lamp.projectCode!, name: 'bench' })
    .returning({ id: consumerGroups.id });
const [sub] = await db
    .insert(subscriptions)
    .values({ productId: lamp.id, projectCode: lamp.projectCode! })
    .returning({ id: subscriptions.id });
await db.insert(subscriptionGroups).values({ subscriptionId: sub.id, groupId: group.id });
const [admin] = await db.select().from(users).limit(1);
const key = { accessKey: 'LTAIbench', accessSecret: 'bench-secret-0123456789abcdefgh' };
await db.insert(accessKeys).values({ userId: admin.id, ...key });

const broker = await createBroker({ db, log: () => undefined });
const amqp = createAmqpService({ db, backlogMax: 1_000_000, backlogHours: 24, log: () => undefined });
amqp.attach(broker);
await amqp.start();
const mqttPort = await broker.listen(0, '127.0.0.1');
const amqpPort = await amqp.listen(0, '127.0.0.1');
process.stdout.write(
    JSON.stringify({
        mqttPort,
        amqpPort,
        groupId: group.id,
        ...key,
        devices: benchDevices,
    }) + '\n',
);

const backlog = async () => amqp.groupStatus(group.id).then((s) => s.backlog);
answerCommands({
    fill: async (arg) => {
        const payload = JSON.stringify({
            id: '0',
            version: '1.0',
            params: { Brightness: 50, ActivePower: 12.5, LightSwitch: 1 },
            method: 'thing.event.property.post',
        });
        await db.execute(
            sql`INSERT INTO amqp_queue (group_id, device_id, message_id, topic, generate_time, payload)
                SELECT ${group.id}, 1, (1000000000 + g)::text, '/sys/bench/topic', 0, ${payload}
                FROM generate_series(1, ${Number(arg)}) AS g`,
        );
        return { backlog: await backlog() };
    },
    stats: async () => ({ backlog: await backlog(), rss: process.memoryUsage().rss }),
});
