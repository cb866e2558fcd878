import { DATA_TYPE_LABELS, DATA_TYPE_NAMES } from '../schemas/thingModel';

/**
 * Fixed lists the platform answers but nobody edits: network types and units. Categories, scenes and
 * standard functions are rows (server/seed) because products and projects refer to them.
 */
export interface NetworkOption {
    id: number;
    name: string;
}

/** type 0: how a device or gateway itself connects (5 is the form's default). */
export const CONNECTION_METHODS: NetworkOption[] = [
    { id: 1, name: 'WiFi' },
    { id: 2, name: '蜂窝（2G/3G/4G/5G）' },
    { id: 3, name: 'NB-IoT' },
    { id: 4, name: 'LoRaWAN' },
    { id: 5, name: '以太网' },
    { id: 6, name: '其他' },
];

/** type 1: how a sub-device reaches its gateway. */
export const GATEWAY_PROTOCOLS: NetworkOption[] = [
    { id: 11, name: 'Modbus' },
    { id: 12, name: 'OPC UA' },
    { id: 13, name: 'ZigBee' },
    { id: 14, name: 'BLE（蓝牙）' },
    { id: 15, name: '自定义' },
];

export function networkName(id: number): string | null {
    return [...CONNECTION_METHODS, ...GATEWAY_PROTOCOLS].find((n) => n.id === id)?.name ?? null;
}

export const DATA_TYPE_OPTIONS = DATA_TYPE_NAMES.map((value) => ({ value, label: DATA_TYPE_LABELS[value] }));

export interface Unit {
    symbol: string;
    name: string;
}

export const UNITS: Unit[] = [
    { symbol: '°C', name: '摄氏度' },
    { symbol: '°F', name: '华氏度' },
    { symbol: '%RH', name: '相对湿度' },
    { symbol: '%', name: '百分比' },
    { symbol: 'lux', name: '照度' },
    { symbol: 'V', name: '伏特' },
    { symbol: 'mV', name: '毫伏' },
    { symbol: 'A', name: '安培' },
    { symbol: 'mA', name: '毫安' },
    { symbol: 'W', name: '瓦特' },
    { symbol: 'kW', name: '千瓦' },
    { symbol: 'kWh', name: '千瓦时' },
    { symbol: 'Hz', name: '赫兹' },
    { symbol: 'm', name: '米' },
    { symbol: 'cm', name: '厘米' },
    { symbol: 'mm', name: '毫米' },
    { symbol: 'km', name: '千米' },
    { symbol: 'km/h', name: '千米每小时' },
    { symbol: 'm/s', name: '米每秒' },
    { symbol: 'Pa', name: '帕斯卡' },
    { symbol: 'kPa', name: '千帕' },
    { symbol: 'hPa', name: '百帕' },
    { symbol: 'dB', name: '分贝' },
    { symbol: 'ppm', name: '百万分率' },
    { symbol: 'μg/m³', name: '微克每立方米' },
    { symbol: 'mg/m³', name: '毫克每立方米' },
    { symbol: 'L', name: '升' },
    { symbol: 'm³', name: '立方米' },
    { symbol: 'm³/h', name: '立方米每小时' },
    { symbol: 'kg', name: '千克' },
    { symbol: 's', name: '秒' },
    { symbol: 'min', name: '分钟' },
    { symbol: 'h', name: '小时' },
    { symbol: '°', name: '度' },
    { symbol: 'rpm', name: '转每分钟' },
];
