import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The help pages' samples (docs/help/*.md). A fence's info string says how it is checked: ```sh test=post-plain```
 * is run by helpSamples.test.ts, ```js amqp-test=node``` by helpAmqpSamples.test.ts. The samples use the example
 * values the manual explains (host 127.0.0.1, MQTT 1883, console 8080, AMQP 5672, ProductKey a1LampDemo7, the
 * DeviceSecret below, the AccessKey pair); the tests put the started platform's real ones in their place.
 */
export const HELP_DIR = path.resolve('docs/help');

export const EXAMPLE = {
    mqttPort: '1883',
    httpPort: '8080',
    amqpPort: '5672',
    productKey: 'a1LampDemo7',
    deviceName: 'SL-BJ-0001',
    deviceSecret: '9c1e4b7a2d5f8e3b6a0c9d2e5f8b1a4c',
    accessKey: 'LTAIdemoAccessKey',
    accessSecret: 'demoAccessSecret0123456789',
    consumerGroupId: 'DEFAULT_GROUP',
    mqttsPort: '8883',
    httpsPort: '8443',
    amqpsPort: '5671',
    caFile: './data/tls/ca.pem',
} as const;

export interface Sample {
    file: string;
    line: number;
    lang: string;
    /** 'test' or 'amqp-test'; undefined: not a sample (a JSON answer shown as data). */
    kind?: string;
    name?: string;
    code: string;
}

/** Every fenced block of every help page, with its language, kind and name from the info string. */
export function helpSamples(): Sample[] {
    const samples: Sample[] = [];
    for (const file of readdirSync(HELP_DIR).filter((f) => f.endsWith('.md'))) {
        const lines = readFileSync(path.join(HELP_DIR, file), 'utf8').split('\n');
        for (let i = 0; i < lines.length; i++) {
            const open = /^```(\S+)\s*(.*)$/.exec(lines[i]);
            if (!open) continue;
            const start = i;
            const body: string[] = [];
            for (i++; i < lines.length && !lines[i].startsWith('```'); i++) body.push(lines[i]);
            const [kind, name] = (open[2].trim().split(/\s+/)[0] ?? '').split('=');
            samples.push({
                file,
                line: start + 1,
                lang: open[1],
                kind: kind || undefined,
                name: name || undefined,
                code: body.join('\n') + '\n',
            });
        }
    }
    return samples;
}

/** The sample with the platform's values in place of the manual's examples. */
export function substitute(code: string, values: Partial<Record<keyof typeof EXAMPLE, string | number>>): string {
    let out = code;
    for (const [key, value] of Object.entries(values)) {
        const example = EXAMPLE[key as keyof typeof EXAMPLE];
        if (key.endsWith('Port')) out = out.replace(new RegExp(`(?<=[:\\s])${example}\\b`, 'g'), String(value));
        else out = out.split(example).join(String(value));
    }
    return out;
}

export interface Ran {
    code: number | null;
    output: string;
}

export interface Running {
    output: () => string;
    /** Resolves once the output holds `text`. */
    waitFor: (text: string, timeoutMs?: number) => Promise<void>;
    done: Promise<Ran>;
    stop: () => Promise<void>;
}

/** A scratch directory whose node_modules is the repository's, so `import mqtt from 'mqtt'` resolves. */
export function scratchDir(): { dir: string; remove: () => void } {
    const dir = mkdtempSync(path.join(tmpdir(), 'help-samples-'));
    symlinkSync(path.resolve('node_modules'), path.join(dir, 'node_modules'), 'dir');
    return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const PYTHON = ['/usr/bin/python3', 'python3'];

/** Starts a sample as a reader would: bash for sh, node for js (as an ES module), python3 for python. */
export function start(sample: Sample, code: string, dir: string, n: number): Running {
    const ext = { sh: 'sh', js: 'mjs', python: 'py' }[sample.lang];
    if (!ext) throw new Error(`${sample.file}:${sample.line}: 不知道如何运行 ${sample.lang}`);
    const file = path.join(dir, `sample-${n}.${ext}`);
    writeFileSync(file, code);
    const [command, args] =
        sample.lang === 'sh'
            ? ['bash', ['-e', file]]
            : sample.lang === 'js'
              ? [process.execPath, [file]]
              : [PYTHON.find((p) => p.startsWith('/') && existsSyncSafe(p)) ?? 'python3', [file]];
    const child = spawn(command, args as string[], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const waiters: Array<() => void> = [];
    const onData = (d: Buffer) => {
        output += d.toString();
        waiters.splice(0).forEach((w) => w());
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const done = new Promise<Ran>((resolve) => child.once('close', (code) => resolve({ code, output })));
    let exited = false;
    void done.then(() => {
        exited = true;
        waiters.splice(0).forEach((w) => w());
    });
    return {
        output: () => output,
        done,
        waitFor: (text, timeoutMs = 10_000) =>
            new Promise((resolve, reject) => {
                const timer = setTimeout(
                    () => reject(new Error(`样例未输出“${text}”（${timeoutMs} ms）:\n${output}`)),
                    timeoutMs,
                );
                const check = () => {
                    if (output.includes(text)) {
                        clearTimeout(timer);
                        resolve();
                    } else if (exited) {
                        clearTimeout(timer);
                        reject(new Error(`样例已退出，未输出“${text}”:\n${output}`));
                    } else waiters.push(check);
                };
                check();
            }),
        stop: async () => {
            if (!exited) {
                child.kill('SIGTERM');
                await done;
            }
        },
    };
}

function existsSyncSafe(p: string): boolean {
    try {
        readFileSync(p);
        return true;
    } catch {
        return false;
    }
}

/** Runs a sample to its end (at most `timeoutMs`). */
export async function run(sample: Sample, code: string, dir: string, n: number, timeoutMs = 20_000): Promise<Ran> {
    const running = start(sample, code, dir, n);
    const timer = setTimeout(() => void running.stop(), timeoutMs);
    const ran = await running.done;
    clearTimeout(timer);
    return ran;
}
