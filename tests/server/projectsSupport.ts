import { asc } from 'drizzle-orm';
import { expect } from 'vitest';
import * as t from '../../server/db/schema';
import type { TestServer } from '../../server/testing';
import { call, form, rowCounts, type Answer } from './support';

export interface ProjectRow {
    id: number;
    name: string;
    projectName: string;
    code: string;
    classId: number;
    sceneName: string;
    remark: string | null;
    createTime: string;
    productCount: number;
    deviceCount: number;
    onlineCount: number;
}

let made = 0;
/** A fresh project name (unique within a test run). */
export const projectName = (prefix = '测试项目') => `${prefix}_${Date.now().toString(36)}_${made++}`;

export async function createProject(s: TestServer, values: Record<string, string | number> = {}): Promise<ProjectRow> {
    const answer = await call(s, 'POST', '/api/project/save', form({ name: projectName(), classId: 1, ...values }));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.data as unknown as ProjectRow;
}

/**
 * Every row of the tables project calls write (rows in id order), plus the row count of every table: equal before
 * and after a refused call means nothing was written, updated or deleted.
 */
export async function snapshot(s: TestServer) {
    const { db } = s;
    return {
        counts: await rowCounts(db),
        projects: await db.select().from(t.projects).orderBy(asc(t.projects.id)),
        scenes: await db.select().from(t.scenes).orderBy(asc(t.scenes.id)),
        staff: await db.select().from(t.projectUsers).orderBy(asc(t.projectUsers.id)),
        devices: await db
            .select({ id: t.devices.id, projectId: t.devices.projectId })
            .from(t.devices)
            .orderBy(asc(t.devices.id)),
        products: await db
            .select({ id: t.products.id, projectCode: t.products.projectCode })
            .from(t.products)
            .orderBy(asc(t.products.id)),
        alerts: await db
            .select({ id: t.alertEvents.id, projectId: t.alertEvents.projectId, status: t.alertEvents.status })
            .from(t.alertEvents)
            .orderBy(asc(t.alertEvents.id)),
        groups: await db.select().from(t.deviceGroups).orderBy(asc(t.deviceGroups.id)),
        groupDevices: await db.select().from(t.groupDevices).orderBy(asc(t.groupDevices.groupId)),
    };
}

/** Calls and expects a refusal in the general envelope with `message`, and nothing written. */
export async function expectRefused(
    s: TestServer,
    method: string,
    target: string,
    init: RequestInit,
    message: string,
    status = 400,
): Promise<Answer> {
    const before = await snapshot(s);
    const answer = await call(s, method, target, init);
    expect(answer.body, `${method} ${target}`).toEqual({ code: status, msg: message });
    expect(answer.status).toBe(status);
    expect(await snapshot(s)).toEqual(before);
    return answer;
}
