import pTimeout from 'p-timeout';
import type { Server } from 'node:http';
import { sql } from 'drizzle-orm';
import type { AmqpService } from '../amqp/service';
import type { Db } from '../db/client';
import type { Broker } from '../mqtt/broker';
import type { MemberState } from './processState';

/**
 * Readiness (/health/ready, HAProxy's checks) and the SIGTERM drain: ready while every listener listens, the
 * database and Redis answer, and the process is neither draining nor fenced (server/cluster/lease.ts). The answer is
 * up or down; the reason goes to the log, once per change.
 */

export interface ReadinessSources {
    db: Db;
    http: Server;
    broker: Broker;
    amqp: AmqpService;
    /** Redis answers (cluster only). */
    ping?: () => Promise<boolean>;
    /** This member is fenced now. */
    fenced?: () => boolean;
    log: (message: string) => void;
}

export interface Readiness {
    sources: ReadinessSources;
    draining: boolean;
    lastReady?: boolean;
}

export const createReadiness = (sources: ReadinessSources): Readiness => ({ sources, draining: false });

/** The database answers a SELECT 1 within 2 s. */
function databaseAnswers(db: Db): Promise<boolean> {
    return pTimeout(
        db.execute(sql`SELECT 1`).then(() => true),
        { milliseconds: 2000, fallback: () => false },
    ).catch(() => false);
}

export async function checkReady(r: Readiness): Promise<boolean> {
    if (r.draining) return false;
    const { http, broker, amqp, db, ping, fenced, log } = r.sources;
    // The console, MQTT and AMQP listeners (a port taken by another program leaves one down: not ready).
    const listeners = http.listening && broker.listening && amqp.listening;
    const [database, cache] = await Promise.all([databaseAnswers(db), ping ? ping() : true]);
    const member = !fenced?.();
    const ready = listeners && database && cache && member;
    if (ready !== r.lastReady) {
        r.lastReady = ready;
        if (!ready) log(`就绪检查未通过: 监听 ${listeners}，数据库 ${database}，Redis ${cache}，集群成员 ${member}`);
    }
    return ready;
}

export function stateOf(r: Readiness): MemberState {
    return r.draining ? 'draining' : r.lastReady === false ? 'notReady' : 'ready';
}

/**
 * SIGTERM, first step: readiness answers 503 so the load balancer takes this process out, then (after `delayMs`, in a
 * cluster) the listeners stop and the devices are closed once what they sent is stored and acknowledged.
 */
export async function drain(r: Readiness, delayMs: number | undefined): Promise<void> {
    r.draining = true;
    // One process has no load balancer to tell: Ctrl+C stops at once.
    if (delayMs !== undefined) {
        r.sources.log(`正在排空: 就绪检查已返回 503，${delayMs} ms 后停止接入并断开设备`);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
    await r.sources.broker.drain();
}
