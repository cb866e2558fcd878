import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { defineResource } from '../../src/engine';
import { renderDefinitions, searchParam } from './helpers';

/**
 * The `markdown` section: a document loaded when its page opens, raw HTML shown as text, a table of contents of its
 * h2 / h3, search kept in ?q=, a failed load said with 重试.
 */
const DOC = `# 指南

开头的说明 <b>不是标记</b>。

## 安装

用 \`apt-get\` 安装。

\`\`\`sh test=install
apt-get install mosquitto-clients
\`\`\`

### 检查版本

运行 mosquitto_pub --help。

## 上报数据

设备发布到 property/post。
`;

let loads = 0;
let failNext = false;

const guide = defineResource({
    name: 'guide',
    label: '指南',
    hidden: true,
    fields: {},
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/guide',
            title: '指南',
            sections: [
                {
                    kind: 'markdown',
                    title: '指南',
                    load: async () => {
                        loads += 1;
                        if (failNext) {
                            failNext = false;
                            throw new Error('网络错误');
                        }
                        return { default: DOC };
                    },
                },
            ],
        },
    ],
});

describe('engine: markdown section', () => {
    it('renders the document with a table of contents; HTML in it is text; fence info keeps only the language', async () => {
        renderDefinitions([guide], '/guide');
        const article = await screen.findByRole('article', { name: '指南' });
        expect(within(article).getByRole('heading', { level: 2, name: '安装' })).toHaveAttribute('id', 'h-1');
        expect(within(article).getByRole('heading', { level: 3, name: '检查版本' })).toHaveAttribute('id', 'h-2');
        expect(article.textContent).toContain('开头的说明 <b>不是标记</b>。');
        expect(article.querySelector('b')).toBeNull();
        expect(article.querySelector('code.language-sh')).not.toBeNull();
        const toc = screen.getByRole('navigation', { name: '目录' });
        expect(
            within(toc)
                .getAllByRole('button')
                .map((b) => b.textContent),
        ).toEqual(['安装', '检查版本', '上报数据']);
        fireEvent.click(within(toc).getByRole('button', { name: '上报数据' }));
        expect(window.location.hash).toBe('#h-3');
    });

    it('searches the sections, the words in ?q=', async () => {
        renderDefinitions([guide], '/guide?q=mosquitto');
        const results = await screen.findByRole('region', { name: '搜索结果' });
        expect(within(results).getByText('找到 2 个章节')).toBeInTheDocument();
        expect(within(results).getByText('安装')).toBeInTheDocument();
        expect(within(results).getByText('检查版本')).toBeInTheDocument();
        fireEvent.change(screen.getByRole('textbox', { name: '搜索文档' }), { target: { value: '没有的词' } });
        expect(await screen.findByText('没有找到“没有的词”')).toBeInTheDocument();
        expect(searchParam('q')).toBe('没有的词');
        fireEvent.change(screen.getByRole('textbox', { name: '搜索文档' }), { target: { value: '' } });
        await waitFor(() => expect(screen.queryByRole('region', { name: '搜索结果' })).toBeNull());
        expect(searchParam('q')).toBeNull();
    });

    it('says a failed load and loads again on 重试', async () => {
        failNext = true;
        const before = loads;
        renderDefinitions([guide], '/guide');
        expect(await screen.findByText('指南加载失败：网络错误')).toBeInTheDocument();
        fireEvent.click(screen.getByRole('button', { name: '重试' }));
        expect(await screen.findByRole('article', { name: '指南' })).toBeInTheDocument();
        expect(loads).toBe(before + 2);
    });
});
