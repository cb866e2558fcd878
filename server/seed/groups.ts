import { deviceGroups, groupDevices } from '../db/schema';
import type { DemoContext } from './context';

interface DemoGroup {
    name: string;
    remark?: string;
    devices?: string[];
    children?: DemoGroup[];
}

const DAY = 24 * 60 * 60 * 1000;

/** City lighting (P2024002): district → road → section, three levels; and a small tree in the park project. */
const DEMO_GROUPS: Array<{ projectCode: string; roots: DemoGroup[] }> = [
    {
        projectCode: 'P2024002',
        roots: [
            {
                name: '北京市照明',
                remark: '北京城区路灯与井盖',
                children: [
                    {
                        name: '东城区',
                        remark: '东城区主干道',
                        devices: ['SL-BJ-0003'],
                        children: [
                            { name: '长安街东段', remark: '长安街沿线单灯', devices: ['SL-BJ-0001', 'SL-BJ-0002'] },
                            { name: '天坛周边', devices: ['SL-BJ-0003'] },
                        ],
                    },
                    { name: '海淀区', children: [{ name: '颐和园路', devices: ['SL-BJ-0004'] }] },
                ],
            },
            {
                name: '上海市井盖',
                remark: '窨井盖监测',
                devices: ['MC-SH-0001', 'MC-SH-0002', 'MC-SH-0003', 'MC-SH-0004'],
            },
        ],
    },
    {
        projectCode: 'P2024001',
        roots: [{ name: '园区办公楼', children: [{ name: 'A座_三层', devices: ['TH-OFFICE-01', 'TH-OFFICE-02'] }] }],
    },
];

/** A demo three-level group tree with devices in it. Issue 5. */
export async function insertDemoGroups(ctx: DemoContext): Promise<void> {
    let order = 0;
    const insert = async (projectCode: string, node: DemoGroup, parentId: number | null, level: number) => {
        const [row] = await ctx.tx
            .insert(deviceGroups)
            .values({
                name: node.name,
                parentId,
                level,
                projectCode,
                remark: node.remark ?? null,
                // Oldest first, a minute apart, so the list (newest first) is stable.
                createTime: new Date(ctx.now.getTime() - 2 * DAY + order++ * 60_000),
            })
            .returning({ id: deviceGroups.id });
        const ids = (node.devices ?? []).map((n) => ctx.deviceIds.get(n)).filter((id): id is number => !!id);
        if (ids.length)
            await ctx.tx.insert(groupDevices).values(ids.map((deviceId) => ({ groupId: row.id, deviceId })));
        for (const child of node.children ?? []) await insert(projectCode, child, row.id, level + 1);
    };
    for (const { projectCode, roots } of DEMO_GROUPS) {
        if (!ctx.projectIds.has(projectCode)) continue;
        for (const root of roots) await insert(projectCode, root, null, 1);
    }
}
