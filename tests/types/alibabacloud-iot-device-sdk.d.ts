/** The parts of Alibaba's Node device SDK (alibabacloud-iot-device-sdk 1.2.8, untyped) the tests drive. */
declare module 'alibabacloud-iot-device-sdk' {
    interface Triple {
        productKey: string;
        deviceName: string;
        deviceSecret: string;
    }
    interface AlinkReply {
        id?: string;
        code: number;
        data?: unknown;
        message?: string;
    }
    interface Gateway {
        on(event: 'connect' | 'error' | 'close' | 'message', fn: (...args: unknown[]) => void): void;
        addTopo(devices: Triple[], cb: (reply: AlinkReply) => void): void;
        getTopo(cb: (reply: AlinkReply) => void): void;
        removeTopo(devices: Array<{ productKey: string; deviceName: string }>, cb: (reply: AlinkReply) => void): void;
        regiestSubDevice(
            devices: { productKey: string; deviceName: string } | Array<{ productKey: string; deviceName: string }>,
            cb: (reply: AlinkReply) => void,
        ): void;
        end(force?: boolean, cb?: () => void): void;
    }
    interface RegisterAnswer {
        code: number;
        data?: { productKey: string; deviceName: string; deviceSecret: string };
        message?: string;
    }
    const iot: {
        gateway(config: Triple & { brokerUrl?: string; keepalive?: number }): Gateway;
        register(
            options: {
                productKey: string;
                productSecret: string;
                deviceName: string;
                registerURL?: string;
                random?: string;
                signMethod?: string;
            },
            cb: (answer: RegisterAnswer | Error) => void,
        ): void;
    };
    export default iot;
}
