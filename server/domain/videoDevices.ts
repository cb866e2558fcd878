import { and, desc, eq, ilike, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { devices, products, projects, videoDevices, videoDictionary } from '../db/schema';
import { badRequest, notFound } from '../http/errors';
import { formatTime } from '../http/time';

/** The platform's own GB/T 28181 identity (the SIP server cameras are configured with). */
export const SIP_DOMAIN = '3402000000';
export const SIP_SERVER_ID = '34020000002000000001';

export const VIDEO_NOT_FOUND = '视频设备不存在';

const columns = {
    deviceId: devices.id,
    deviceName: devices.deviceName,
    productId: devices.productId,
    productKey: products.productKey,
    productName: products.productName,
    projectId: devices.projectId,
    projectName: projects.name,
    status: devices.status,
    remark: devices.remark,
    longitude: devices.longitude,
    latitude: devices.latitude,
    address: devices.addr,
    createTime: devices.createTime,
    lastTime: devices.lastTime,
    protocol: videoDevices.protocol,
    host: videoDevices.host,
    port: videoDevices.port,
    username: videoDevices.username,
    hasPassword: sql<boolean>`(${videoDevices.password} IS NOT NULL AND ${videoDevices.password} <> '')`,
    uri: videoDevices.uri,
    pushing: videoDevices.pushing,
    manufacturer: videoDevices.manufacturer,
    tcode: videoDevices.tcode,
    tname: videoDevices.tname,
    icode: videoDevices.icode,
    iname: videoDevices.iname,
    ncode: videoDevices.ncode,
    nname: videoDevices.nname,
    pcode: videoDevices.pcode,
    ccode: videoDevices.ccode,
    acode: videoDevices.acode,
    gbId: videoDevices.gbId,
    channels: videoDevices.channels,
    registerTime: videoDevices.registerTime,
    keepaliveTime: videoDevices.keepaliveTime,
};

export interface SipInfo {
    sipIp: string;
    sipPort: number | null;
}

function toVideo(row: Awaited<ReturnType<typeof selectRows>>[number], timeZone: string, sip: SipInfo) {
    const gb = row.protocol === 'gb28181';
    return {
        ...row,
        deviceId: Number(row.deviceId),
        position: row.longitude !== null && row.latitude !== null ? `${row.longitude},${row.latitude}` : null,
        createTime: formatTime(row.createTime, timeZone),
        lastTime: formatTime(row.lastTime, timeZone),
        registerTime: formatTime(row.registerTime, timeZone),
        keepaliveTime: formatTime(row.keepaliveTime, timeZone),
        channels: (row.channels ?? []) as GbChannel[],
        // What a gb28181 camera is configured with to register here.
        sipId: gb ? SIP_SERVER_ID : null,
        sipDomain: gb ? SIP_DOMAIN : null,
        sipIp: gb ? sip.sipIp : null,
        sipPort: gb ? sip.sipPort : null,
    };
}

export interface GbChannel {
    channelId: string;
    name: string;
    manufacturer?: string;
    model?: string;
    status?: string;
}

function selectRows(db: Db | Tx, where: SQL | undefined, limit?: number, offset?: number) {
    const q = db
        .select(columns)
        .from(videoDevices)
        .innerJoin(devices, eq(devices.id, videoDevices.deviceId))
        .innerJoin(products, eq(products.id, devices.productId))
        .leftJoin(projects, eq(projects.id, devices.projectId))
        .where(where)
        .orderBy(desc(videoDevices.deviceId));
    return limit === undefined ? q : q.limit(limit).offset(offset ?? 0);
}

export type VideoDevice = ReturnType<typeof toVideo>;

export interface VideoFilter {
    pushing?: 0 | 1;
    deviceName?: string;
    protocol?: 'rtsp' | 'gb28181';
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (m) => `\\${m}`);

function filterSql(f: VideoFilter): SQL | undefined {
    const parts: SQL[] = [];
    if (f.pushing !== undefined) parts.push(eq(videoDevices.pushing, f.pushing));
    if (f.protocol) parts.push(eq(videoDevices.protocol, f.protocol));
    if (f.deviceName) parts.push(ilike(devices.deviceName, `%${escapeLike(f.deviceName)}%`));
    return parts.length ? and(...parts) : undefined;
}

export async function listVideos(
    db: Db,
    f: VideoFilter,
    size: number,
    offset: number,
    timeZone: string,
    sip: SipInfo,
): Promise<{ records: VideoDevice[]; total: number }> {
    const where = filterSql(f);
    const rows = await selectRows(db, where, size, offset);
    const [{ n }] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(videoDevices)
        .innerJoin(devices, eq(devices.id, videoDevices.deviceId))
        .where(where);
    return { records: rows.map((r) => toVideo(r, timeZone, sip)), total: Number(n) };
}

export async function findVideo(db: Db | Tx, deviceId: number, timeZone: string, sip: SipInfo) {
    const [row] = await selectRows(db, eq(videoDevices.deviceId, deviceId));
    return row ? toVideo(row, timeZone, sip) : undefined;
}

export async function getVideo(db: Db | Tx, deviceId: number, timeZone: string, sip: SipInfo) {
    const found = await findVideo(db, deviceId, timeZone, sip);
    if (!found) throw notFound(VIDEO_NOT_FOUND);
    return found;
}

/** What the relay needs: the camera's address and account, password included (server-side only). */
export async function streamSource(db: Db | Tx, deviceId: number) {
    const [row] = await db
        .select({
            protocol: videoDevices.protocol,
            host: videoDevices.host,
            port: videoDevices.port,
            username: videoDevices.username,
            password: videoDevices.password,
            uri: videoDevices.uri,
            pushing: videoDevices.pushing,
            projectId: devices.projectId,
        })
        .from(videoDevices)
        .innerJoin(devices, eq(devices.id, videoDevices.deviceId))
        .where(eq(videoDevices.deviceId, deviceId));
    return row;
}

/** The cameras marked pushing (resumed at start). */
export async function pushingIds(db: Db): Promise<number[]> {
    const rows = await db.select({ id: videoDevices.deviceId }).from(videoDevices).where(eq(videoDevices.pushing, 1));
    return rows.map((r) => Number(r.id));
}

export async function dictionary(db: Db | Tx, kind: number) {
    return db
        .select({ code: videoDictionary.code, name: videoDictionary.name })
        .from(videoDictionary)
        .where(eq(videoDictionary.kind, kind))
        .orderBy(videoDictionary.sort, videoDictionary.code);
}

const KIND_LABEL: Record<number, string> = { 1: '设备类型', 2: '行业编码', 3: '网络标识' };

/** The dictionary names of the codes given, each checked (an unknown code is refused naming its field). */
export async function codeNames(
    db: Db | Tx,
    codes: { tcode?: string; icode?: string; ncode?: string },
): Promise<{ tname: string | null; iname: string | null; nname: string | null }> {
    const wanted: Array<[number, string | undefined]> = [
        [1, codes.tcode],
        [2, codes.icode],
        [3, codes.ncode],
    ];
    const given = wanted.filter((w): w is [number, string] => !!w[1]);
    const rows = given.length
        ? await db
              .select()
              .from(videoDictionary)
              .where(
                  inArray(
                      sql`(${videoDictionary.kind}, ${videoDictionary.code})`,
                      given.map(([k, c]) => sql`(${k}, ${c})`),
                  ),
              )
        : [];
    const name = (kind: number, code: string | undefined) => {
        if (!code) return null;
        const row = rows.find((r) => r.kind === kind && r.code === code);
        if (!row) throw badRequest(`${KIND_LABEL[kind]}编码 ${code} 不存在`);
        return row.name;
    };
    return { tname: name(1, codes.tcode), iname: name(2, codes.icode), nname: name(3, codes.ncode) };
}

/**
 * A gb28181 camera's own 20-digit code (GB/T 28181 appendix D): centre code (province, city, area, base unit
 * "00"), industry, type, network, serial. Unpicked parts take the usual defaults (3402 00 / 00 / 132 / 7).
 */
export function gbCode(
    parts: { pcode?: string; ccode?: string; acode?: string; icode?: string; tcode?: string; ncode?: string },
    serial: number,
): string {
    const centre = `${parts.pcode || '34'}${parts.ccode || '02'}${parts.acode || '00'}00`;
    return `${centre}${parts.icode || '00'}${parts.tcode || '132'}${parts.ncode || '7'}${String(serial % 1_000_000).padStart(6, '0')}`;
}

/**
 * An rtsp camera is online while its pushed stream plays and offline when the source is lost (a camera without
 * MQTT has no other presence). A disabled device stays disabled.
 */
export async function setCameraOnline(db: Db, deviceId: number, online: boolean, now: Date): Promise<void> {
    await db
        .update(devices)
        .set({ status: online ? 'ONLINE' : 'OFFLINE', statusTime: now, ...(online ? { lastTime: now } : {}) })
        .where(and(eq(devices.id, deviceId), eq(devices.enabled, true)));
}
