import { bool, enumOf, event, num, param, property, service, type FunctionDefinition } from './tsl';

/** Reference data every database needs, demo or not: products cannot be created without categories. */

export const SCENES = ['智慧办公', '智慧城市', '智慧车辆', '工业互联网'];

export interface CategorySeed {
    name: string;
    children?: CategorySeed[];
    /** Standard functions offered for this category (and, through the lineage, for its children). */
    standard?: FunctionDefinition[];
}

const temperature = property('Temperature', '温度', num('float', -40, 120, '°C', 0.1));
const humidity = property('Humidity', '湿度', num('float', 0, 100, '%RH', 0.1));
const voltage = property('Voltage', '电压', num('float', 0, 500, 'V', 0.1));
const current = property('Current', '电流', num('float', 0, 100, 'A', 0.01));
const battery = property('BatteryLevel', '电池电量', num('int', 0, 100, '%', 1));

export const CATEGORIES: CategorySeed[] = [
    {
        name: '智慧城市',
        children: [
            {
                name: '公共服务',
                children: [
                    {
                        name: '路灯照明',
                        standard: [
                            property('LightSwitch', '主灯开关', bool('关闭', '开启'), 'rw'),
                            property('Brightness', '亮度', num('int', 0, 100, '%', 1), 'rw'),
                            property('ActivePower', '有功功率', num('float', 0, 2000, 'W', 0.1)),
                            voltage,
                            current,
                            event('LampFault', '灯具故障', 'alert', [
                                param(
                                    'FaultCode',
                                    '故障码',
                                    enumOf({ '1': '灯珠损坏', '2': '电源异常', '3': '通信中断' }),
                                ),
                            ]),
                            service('SetBrightness', '设置亮度', 'async', [
                                param('Brightness', '亮度', num('int', 0, 100, '%', 1)),
                            ]),
                        ],
                    },
                    {
                        name: '井盖',
                        standard: [
                            property('CoverState', '井盖状态', enumOf({ '0': '关闭', '1': '打开' })),
                            property('TiltAngle', '倾斜角度', num('float', 0, 90, '°', 0.1)),
                            battery,
                            event('CoverOpened', '井盖打开告警', 'alert'),
                        ],
                    },
                    {
                        name: '垃圾桶',
                        standard: [property('FillLevel', '满溢度', num('int', 0, 100, '%', 1)), battery],
                    },
                ],
            },
            {
                name: '环境监测',
                standard: [temperature, humidity],
                children: [
                    {
                        name: '空气质量监测',
                        standard: [
                            property('PM25', 'PM2.5', num('int', 0, 1000, 'μg/m³', 1)),
                            property('PM10', 'PM10', num('int', 0, 1000, 'μg/m³', 1)),
                            property('CO2', '二氧化碳浓度', num('int', 0, 10000, 'ppm', 1)),
                            property('AtmosphericPressure', '大气压', num('float', 300, 1100, 'hPa', 0.1)),
                        ],
                    },
                    {
                        name: '水质监测',
                        standard: [
                            property('PH', 'pH值', num('float', 0, 14, undefined, 0.01)),
                            property('Turbidity', '浊度', num('float', 0, 1000, undefined, 0.1)),
                        ],
                    },
                ],
            },
        ],
    },
    {
        name: '智慧工业',
        children: [
            {
                name: '能源管理',
                children: [
                    {
                        name: '智能电表',
                        standard: [
                            voltage,
                            current,
                            property('ActivePower', '有功功率', num('float', 0, 100000, 'W', 0.1)),
                            property('TotalEnergy', '累计电量', num('double', 0, 99999999, 'kWh', 0.01)),
                        ],
                    },
                    {
                        name: '智能水表',
                        standard: [property('TotalFlow', '累计流量', num('double', 0, 99999999, 'm³', 0.001)), battery],
                    },
                ],
            },
            {
                name: '工业设备',
                children: [
                    { name: '工业网关', standard: [property('CPUUsage', 'CPU使用率', num('float', 0, 100, '%', 0.1))] },
                    {
                        name: '变频器',
                        standard: [
                            property('Frequency', '运行频率', num('float', 0, 400, 'Hz', 0.01), 'rw'),
                            property('MotorSpeed', '电机转速', num('int', 0, 30000, 'rpm', 1)),
                        ],
                    },
                ],
            },
        ],
    },
    {
        name: '智能生活',
        children: [
            {
                name: '家居安防',
                children: [
                    { name: '门磁', standard: [property('ContactState', '门磁状态', bool('关闭', '打开')), battery] },
                    {
                        name: '烟雾报警器',
                        standard: [
                            property('SmokeSensorState', '烟雾检测状态', enumOf({ '0': '正常', '1': '检测到烟雾' })),
                            battery,
                            event('SmokeAlarm', '烟雾告警', 'alert'),
                        ],
                    },
                ],
            },
            {
                name: '环境电器',
                children: [
                    { name: '温湿度传感器', standard: [temperature, humidity, battery] },
                    {
                        name: '空调',
                        standard: [
                            property('PowerSwitch', '电源开关', bool('关闭', '开启'), 'rw'),
                            property('TargetTemperature', '目标温度', num('int', 16, 30, '°C', 1), 'rw'),
                            property(
                                'WorkMode',
                                '工作模式',
                                enumOf({ '0': '自动', '1': '制冷', '2': '制热', '3': '送风' }),
                                'rw',
                            ),
                        ],
                    },
                ],
            },
        ],
    },
];
