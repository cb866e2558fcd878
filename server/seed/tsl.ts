/** Small builders for thing-model definitions in seed data (TSL shapes; numeric specs as strings, as TSL writes them). */

type Specs = Record<string, unknown>;

export const num = (type: 'int' | 'float' | 'double', min: number, max: number, unit?: string, step?: number) => ({
    type,
    specs: {
        min: String(min),
        max: String(max),
        ...(step !== undefined ? { step: String(step) } : {}),
        ...(unit ? { unit } : {}),
    },
});
export const bool = (off: string, on: string) => ({ type: 'bool', specs: { '0': off, '1': on } });
export const enumOf = (values: Record<string, string>) => ({ type: 'enum', specs: values as Specs });
export const text = (length: number) => ({ type: 'text', specs: { length: String(length) } });

type DataType =
    ReturnType<typeof num> | ReturnType<typeof bool> | ReturnType<typeof text> | { type: string; specs?: unknown };

export const param = (identifier: string, name: string, dataType: DataType) => ({ identifier, name, dataType });

export const property = (identifier: string, name: string, dataType: DataType, accessMode: 'r' | 'rw' = 'r') => ({
    type: 'property' as const,
    identifier,
    name,
    accessMode,
    required: false,
    dataType,
});

export const event = (
    identifier: string,
    name: string,
    eventType: 'info' | 'alert' | 'error',
    outputData: ReturnType<typeof param>[] = [],
) => ({ type: 'event' as const, identifier, name, eventType, required: false, outputData });

export const service = (
    identifier: string,
    name: string,
    callType: 'sync' | 'async',
    inputData: ReturnType<typeof param>[] = [],
    outputData: ReturnType<typeof param>[] = [],
) => ({ type: 'service' as const, identifier, name, callType, required: false, inputData, outputData });

export type FunctionDefinition = ReturnType<typeof property> | ReturnType<typeof event> | ReturnType<typeof service>;
