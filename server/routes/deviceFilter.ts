import { DEVICE_STATUSES, type DeviceStatus } from '../../schemas/device';
import type { Db } from '../db/client';
import { productByKey, type DeviceFilter } from '../domain/devices';
import { badRequest } from '../http/errors';
import { positiveInt } from '../http/input';

const SEARCH_MAX = 100;

function searchText(raw: string | undefined, label: string): string | undefined {
    const value = raw?.trim();
    if (!value) return undefined;
    if (value.length > SEARCH_MAX) throw badRequest(`${label}搜索内容不得超过${SEARCH_MAX}个字符`);
    return value;
}

/**
 * The general list's filters from the query string (list and export share them). An unknown productKey matches no
 * device: the answer is empty rather than an error, as any other filter that matches nothing. userId is accepted
 * and ignored (every signed-in user sees every device until project staff narrows it).
 */
export async function listFilter(db: Db, query: (name: string) => string | undefined): Promise<DeviceFilter | null> {
    const filter: DeviceFilter = {
        deviceName: searchText(query('deviceName'), '设备名称'),
        remark: searchText(query('remark'), '备注'),
    };
    const status = query('status')?.trim();
    if (status) {
        if (!DEVICE_STATUSES.some((s) => s.id === status))
            throw badRequest('设备状态只能是 INACTIVE、ONLINE、OFFLINE 或 DISABLE');
        filter.status = status as DeviceStatus;
    }
    const projectId = query('projectId')?.trim();
    if (projectId) filter.projectId = positiveInt(projectId, '项目ID必须是正整数');
    const productKey = query('productKey')?.trim();
    if (productKey) {
        const product = await productByKey(db, productKey);
        if (!product) return null;
        filter.productId = product.id;
    }
    return filter;
}
