import { httpDestination } from './http';
import { kafkaDestination } from './kafka';
import { mqttBridgeDestination } from './mqttBridge';
import { natsDestination } from './nats';
import { rabbitmqDestination } from './rabbitmq';
import { mysqlDestination } from './mysql';
import { postgresDestination } from './postgres';
import { redisStreamDestination } from './redisStream';
import { republishDestination } from './republish';
import type { DestinationKind } from './types';

/** Every destination kind, by its name (a new kind is one file and one line here). */
export const DESTINATION_KINDS: ReadonlyMap<string, DestinationKind> = new Map(
    (
        [
            republishDestination,
            httpDestination,
            mqttBridgeDestination,
            rabbitmqDestination,
            natsDestination,
            kafkaDestination,
            postgresDestination,
            mysqlDestination,
            redisStreamDestination,
        ] as unknown as DestinationKind[]
    ).map((k) => [k.kind, k]),
);
