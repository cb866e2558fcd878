import { bool, enumOf, event, num, param, property, service, text, type FunctionDefinition } from './tsl';

/** Demo content for a first look (SEED_DEMO=1): projects, products across categories, thing models, log entries. */

export const DEMO_PROJECTS = [
    { code: 'P2024001', name: '智慧园区示范项目', scene: '智慧办公', remark: '园区办公楼宇设备接入' },
    { code: 'P2024002', name: '城市照明改造项目', scene: '智慧城市', remark: '主干道路灯与井盖监测' },
    { code: 'P2024003', name: '物流车队管理项目', scene: '智慧车辆', remark: '' },
    { code: 'P2024004', name: '工厂能耗监测项目', scene: '工业互联网', remark: '车间电表与网关' },
];

export interface DemoProduct {
    productName: string;
    /** Fixed, so the help pages' samples name the demo's real keys (docs/help/usermanual.md: a1LampDemo7). */
    productKey: string;
    /** Category path, root first. */
    category: string[];
    nodeType: 0 | 1;
    gatewayType: 0 | 1;
    networkType: number;
    dataType: 0 | 1;
    projectCode: string | null;
    remark: string;
    functions?: FunctionDefinition[];
}

export const DEMO_PRODUCTS: DemoProduct[] = [
    {
        productName: '智能路灯_L1',
        productKey: 'a1LampDemo7',
        category: ['智慧城市', '公共服务', '路灯照明'],
        nodeType: 0,
        gatewayType: 0,
        networkType: 2,
        dataType: 0,
        projectCode: 'P2024002',
        remark: '单灯控制器，支持调光与故障上报',
        functions: [
            property('LightSwitch', '主灯开关', bool('关闭', '开启'), 'rw'),
            property('Brightness', '亮度', num('int', 0, 100, '%', 1), 'rw'),
            property('ActivePower', '有功功率', num('float', 0, 2000, 'W', 0.1)),
            property('TotalEnergy', '累计电量', num('double', 0, 99999999, 'kWh', 0.01)),
            property('WorkMode', '工作模式', enumOf({ '0': '手动', '1': '定时', '2': '光控' }), 'rw'),
            property('FirmwareVersion', '固件版本', text(32)),
            event('LampFault', '灯具故障', 'alert', [
                param('FaultCode', '故障码', enumOf({ '1': '灯珠损坏', '2': '电源异常', '3': '通信中断' })),
            ]),
            service(
                'SetSchedule',
                '设置定时策略',
                'async',
                [param('OnTime', '开灯时间', text(8)), param('OffTime', '关灯时间', text(8))],
                [param('Result', '执行结果', bool('失败', '成功'))],
            ),
        ],
    },
    {
        productName: '智能井盖_M2',
        productKey: 'a1CoverDem2',
        category: ['智慧城市', '公共服务', '井盖'],
        nodeType: 0,
        gatewayType: 0,
        networkType: 3,
        dataType: 0,
        projectCode: 'P2024002',
        remark: 'NB-IoT 井盖倾斜与开盖监测',
        functions: [
            property('CoverState', '井盖状态', enumOf({ '0': '关闭', '1': '打开' })),
            property('TiltAngle', '倾斜角度', num('float', 0, 90, '°', 0.1)),
            property('BatteryLevel', '电池电量', num('int', 0, 100, '%', 1)),
            event('CoverOpened', '井盖打开告警', 'alert'),
        ],
    },
    {
        productName: '空气质量监测站',
        productKey: 'a1AirQDemo3',
        category: ['智慧城市', '环境监测', '空气质量监测'],
        nodeType: 0,
        gatewayType: 0,
        networkType: 1,
        dataType: 0,
        projectCode: 'P2024001',
        remark: '园区环境监测，含光照度（路灯光控的依据）',
        functions: [
            property('Illuminance', '光照度', num('int', 0, 100000, 'lux', 1)),
            property('PM25', 'PM2.5', num('int', 0, 1000, 'μg/m³', 1)),
        ],
    },
    {
        productName: '边缘网关_G1',
        productKey: 'a1EdgeGwDm4',
        category: ['智慧工业', '工业设备', '工业网关'],
        nodeType: 1,
        gatewayType: 0,
        networkType: 5,
        dataType: 0,
        projectCode: 'P2024004',
        remark: '车间边缘网关，下挂 Modbus 电表',
        // What an edge gateway reports about itself: the edge instance's 监控 tab reads these.
        functions: [
            property('cpuUsage', 'CPU使用率', num('float', 0, 100, '%', 0.1)),
            property('memUsage', '内存使用率', num('float', 0, 100, '%', 0.1)),
            property('diskUsage', '磁盘使用率', num('float', 0, 100, '%', 0.1)),
            property('msgUp', '上行消息数', num('int', 0, 1000000, '条/分钟', 1)),
            property('msgDown', '下行消息数', num('int', 0, 1000000, '条/分钟', 1)),
        ],
    },
    {
        productName: '三相电表_E1',
        productKey: 'a1MeterDem5',
        category: ['智慧工业', '能源管理', '智能电表'],
        nodeType: 0,
        gatewayType: 1,
        networkType: 11,
        dataType: 1,
        projectCode: 'P2024004',
        remark: '经网关接入的 Modbus 电表',
        functions: [
            property('Voltage', '电压', num('float', 0, 500, 'V', 0.1)),
            property('Current', '电流', num('float', 0, 100, 'A', 0.01)),
            property('TotalEnergy', '累计电量', num('double', 0, 99999999, 'kWh', 0.01)),
        ],
    },
    {
        productName: '温湿度传感器_T1',
        productKey: 'a1ThSensDm6',
        category: ['智能生活', '环境电器', '温湿度传感器'],
        nodeType: 0,
        gatewayType: 1,
        networkType: 13,
        dataType: 0,
        projectCode: 'P2024001',
        remark: 'ZigBee 温湿度传感器',
        functions: [
            property('Temperature', '温度', num('float', -40, 120, '°C', 0.1)),
            property('Humidity', '湿度', num('float', 0, 100, '%RH', 0.1)),
            property('BatteryLevel', '电池电量', num('int', 0, 100, '%', 1)),
        ],
    },
    {
        productName: '烟雾报警器_S1',
        productKey: 'a1SmokeDem8',
        category: ['智能生活', '家居安防', '烟雾报警器'],
        nodeType: 0,
        gatewayType: 0,
        networkType: 1,
        dataType: 0,
        projectCode: null,
        remark: '',
    },
    {
        productName: '家庭网关_H1',
        productKey: 'a1HomeGwDm9',
        category: ['智能生活', '家居安防'],
        nodeType: 1,
        gatewayType: 0,
        networkType: 1,
        dataType: 0,
        projectCode: 'P2024001',
        remark: 'ZigBee 转 WiFi 网关',
    },
];

export const DEMO_LOGS = [
    { daysAgo: 30, log: '产品管理上线：支持创建产品、定义物模型与查看 Topic。' },
    { daysAgo: 12, log: '物模型支持 TSL 格式的导入与导出，导入时整体校验，失败不写入。' },
    { daysAgo: 2, log: '产品列表支持按名称搜索，新增网关子设备接入方式（Modbus、ZigBee 等）。' },
];
