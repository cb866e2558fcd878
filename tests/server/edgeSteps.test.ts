import { describe, expect, it } from 'vitest';
import { driverRow, driverVersionRow, optionalId, parseJson } from '../../server/domain/edgeRecords';
import { envOf, partRow } from '../../server/routes/edgeParts';

/** The pieces the /api/edge handlers share (server/domain/edgeRecords.ts, server/routes/edgeParts.ts). */

const driver = {
    id: 3,
    name: 'modbus',
    version: '1.0.0',
    protocol: 'modbus-tcp',
    description: '读寄存器',
    configSchema: { type: 'object' },
    fileName: 'm.bin',
    fileSize: 12,
    fileSha256: 'ab',
    storedName: 'd_x',
    createTime: new Date('2026-01-02T03:04:05Z'),
    instanceCount: 2,
};

describe('edge records', () => {
    it('a driver version is the driver row without its description and configuration schema', () => {
        const row = driverRow(driver, 'Asia/Shanghai');
        expect(Object.keys(row)).toEqual([
            'id',
            'name',
            'version',
            'protocol',
            'description',
            'configSchema',
            'fileName',
            'fileSize',
            'sha256',
            'instanceCount',
            'createTime',
        ]);
        expect(row).toMatchObject({ configSchema: '{"type":"object"}', createTime: '2026-01-02 11:04:05' });
        const { description: _d, configSchema: _c, ...rest } = row;
        expect(driverVersionRow(driver, 'Asia/Shanghai')).toEqual(rest);
    });

    it('reads optional ids and JSON text fields', () => {
        expect(optionalId(undefined, 'x')).toBeUndefined();
        expect(optionalId('', 'x')).toBeUndefined();
        expect(optionalId('7', 'x')).toBe(7);
        expect(() => optionalId('-1', '驱动ID必须是正整数')).toThrow('驱动ID必须是正整数');
        expect(parseJson('  ')).toEqual({});
        expect(parseJson('{"a":1}')).toEqual({ a: 1 });
    });
});

describe('function environment (envOf)', () => {
    it('keeps names to text values and refuses what is not a flat JSON object', () => {
        expect(envOf('{"A":1,"B":null}')).toEqual({ A: '1', B: '' });
        expect(envOf('')).toEqual({});
        expect(() => envOf('[1]')).toThrow('环境变量必须是JSON对象');
        expect(() => envOf('{')).toThrow('环境变量必须是JSON对象');
        expect(() => envOf({ A: { b: 1 } })).toThrow('环境变量的值必须是文本');
    });

    it('answers a stored function with its environment as JSON text; other parts have none', () => {
        const at = new Date('2026-01-02T03:04:05Z');
        expect(partRow({ id: 1, env: { A: '1' }, createTime: at }, 'Asia/Shanghai')).toEqual({
            id: 1,
            env: '{"A":"1"}',
            createTime: '2026-01-02 11:04:05',
        });
        expect(partRow({ id: 2, createTime: at }, 'Asia/Shanghai')).toEqual({
            id: 2,
            createTime: '2026-01-02 11:04:05',
        });
    });
});
