import { waitFor, within } from '@testing-library/react';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';
import { mswServer, platformHandler, renderApp } from './helpers';

/**
 * The help page 数据流转 (docs/help/dataforwarding.md, issue 39) in the console: its route renders the document with
 * a table of contents naming every destination's example, and 帮助中心's menu leads to it.
 */
let platform: TestServer;
beforeAll(async () => {
    platform = await createTestServer({ seed: false });
});
afterAll(() => platform?.close());
beforeEach(() => {
    mswServer.use(platformHandler(platform));
});

describe('help page 数据流转', () => {
    it('renders with a table of contents of the SQL and each destination, and the help menu leads to it', async () => {
        renderApp('/dataforwarding');
        // By the article's label, not a role query over the whole console: that takes seconds per try in jsdom on a
        // loaded machine (tests/resources/helpScreens.test.tsx says the same).
        const article = await waitFor(
            () => {
                const found = document.querySelector<HTMLElement>('article[aria-label="数据流转"]');
                expect(found?.textContent).toContain('流转 SQL');
                return found!;
            },
            { timeout: 20_000 },
        );
        const toc = within(article.parentElement!).getByRole('navigation', { name: '目录' });
        const entries = within(toc)
            .getAllByRole('button')
            .map((b) => b.textContent);
        for (const title of [
            '流转 SQL',
            'PostgreSQL 数据表',
            'MySQL / MariaDB 数据表',
            'RabbitMQ',
            'MQTT 桥接到另一台服务器',
            'NATS JetStream',
            'Redis Stream',
            'HTTP(S) 推送（带签名校验）',
            '平台内主题',
            'Kafka',
            '运行状况与死信',
        ])
            expect(entries).toContain(title);
        // A sample's code is shown, its fence's test name is not.
        expect(article.querySelector('code.language-sh')?.textContent).toContain('iot_destination()');
        expect(article.textContent).not.toContain('forward-test');
        // The functions table's `a \|\| b` shows as the operator itself.
        expect(article.textContent).toContain('a || b');
        const links = document.querySelectorAll('a[href="/dataforwarding"]');
        expect([...links].map((a) => a.textContent)).toContain('数据流转');
    });
});
