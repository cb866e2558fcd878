import type { DeviceStatus } from '../../../schemas/device';

/** A device as GET /api/device/detail answers it (`data.device`), secret included. */
export interface DeviceDetail {
    deviceId: number;
    deviceName: string;
    productId: number;
    productKey: string;
    productName: string;
    nodeType: number;
    status: DeviceStatus;
    deviceStatus: boolean;
    remark: string | null;
    projectId: number | null;
    projectName: string | null;
    createTime: string | null;
    lastTime: string | null;
    statusTime: string | null;
    longitude: number | null;
    latitude: number | null;
    addr: string | null;
    username: string;
    clientId: string;
    secret: string;
    gwid: number | null;
    subDeviceCount: number;
}

/** The product part of GET /api/device/detail (`data.product`). */
export interface DeviceProduct {
    productId: number;
    productKey: string;
    productName: string;
    nodeType: number;
    categoryId?: number;
    dataType?: number;
    [key: string]: unknown;
}

/** What every detail tab receives. `reload` fetches the device again (after an edit or a status refresh). */
export interface DeviceTabProps {
    device: DeviceDetail;
    product: DeviceProduct;
    reload: () => void;
}

/** What GET /api/device/detail answers in `data`. */
export interface DeviceDetailAnswer {
    device: DeviceDetail;
    product: DeviceProduct;
}

/** A tag of a device (docs/platform-api.md "Tags"); the key `coordinate` holds the location as 'lat,lng'. */
export interface DeviceTag {
    id: number;
    key: string;
    value: string;
}

/** A file attached to a device (GET /api/device/file/list). */
export interface DeviceFile {
    fileId: number;
    fileName: string;
    size: number;
    createTime: string | null;
    downloadUrl: string;
}
