import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { currentLocation, mswServer, ok, recordingAuthProvider, renderApp, shellHandlers } from './helpers';

const emptyProducts = http.get('*/api/product', () => ok({ records: [], total: 0 }));

describe('left menu from GET /api/menu', () => {
    it('links leaves to their url, or to their id when the url is #, and highlights the current route', async () => {
        mswServer.use(...shellHandlers(), emptyProducts);
        renderApp('/product');
        const nav = await screen.findByRole('navigation', { name: '接入平台菜单' });
        expect(await within(nav).findByRole('link', { name: '概览' })).toHaveAttribute('href', '/introduce');
        expect(within(nav).getByRole('link', { name: '产品管理' })).toHaveAttribute('href', '/product');
        // { id: 'productLog', url: '#' }
        expect(within(nav).getByRole('link', { name: '产品更新日志' })).toHaveAttribute('href', '/productLog');
        expect(within(nav).getByRole('link', { name: '产品管理' })).toHaveAttribute('aria-current', 'page');
        expect(within(nav).getByRole('link', { name: '概览' })).not.toHaveAttribute('aria-current');

        fireEvent.click(within(nav).getByRole('link', { name: '产品更新日志' }));
        await waitFor(() => expect(currentLocation.pathname).toBe('/productLog'));
        await waitFor(() =>
            expect(within(nav).getByRole('link', { name: '产品更新日志' })).toHaveAttribute('aria-current', 'page'),
        );
        expect(within(nav).getByRole('link', { name: '产品管理' })).not.toHaveAttribute('aria-current');
    });

    it("lights a resource's own routes up under its entry (/productDetail under 产品管理)", async () => {
        mswServer.use(
            ...shellHandlers(),
            http.all('*/api/*', () => ok(null)),
        );
        renderApp('/productDetail/view?productId=1');
        const nav = await screen.findByRole('navigation', { name: '接入平台菜单' });
        expect(await within(nav).findByRole('link', { name: '产品管理' })).toHaveAttribute('aria-current', 'page');
        expect(within(nav).getByRole('link', { name: '产品更新日志' })).not.toHaveAttribute('aria-current');
    });

    it('collapses and expands a group', async () => {
        mswServer.use(...shellHandlers(), emptyProducts);
        renderApp('/introduce');
        const nav = await screen.findByRole('navigation', { name: '接入平台菜单' });
        const group = await within(nav).findByRole('button', { name: '设备接入' });
        expect(group).toHaveAttribute('aria-expanded', 'true');
        const region = document.getElementById(group.getAttribute('aria-controls')!)!;
        expect(within(region).getByRole('link', { name: '产品管理' })).toBeInTheDocument();
        fireEvent.click(group);
        expect(group).toHaveAttribute('aria-expanded', 'false');
        await waitFor(() => expect(region).toHaveClass('MuiCollapse-hidden'));
        fireEvent.click(group);
        expect(group).toHaveAttribute('aria-expanded', 'true');
        await waitFor(() => expect(region).not.toHaveClass('MuiCollapse-hidden'));
    });
});

describe('header', () => {
    it('shows the user, the manual link, the platform drawer and the logout entry', async () => {
        mswServer.use(...shellHandlers());
        renderApp('/introduce');
        expect(await screen.findByRole('link', { name: '物联网设备接入管理平台' })).toBeInTheDocument();
        const user = await screen.findByRole('button', { name: '测试管理员' });
        expect(screen.getByRole('link', { name: '平台手册' })).toHaveAttribute('href', '/usermanual');

        fireEvent.click(screen.getByRole('button', { name: '打开平台菜单' }));
        const drawer = await screen.findByRole('navigation', { name: '平台导航' });
        expect(within(drawer).getByRole('link', { name: '物联网接入平台' })).toHaveAttribute('href', '/accessplatform');
        fireEvent.keyDown(drawer, { key: 'Escape' });

        fireEvent.click(user);
        expect(await screen.findByRole('menuitem', { name: '退出登录' })).toBeInTheDocument();
    });

    it('退出登录 ends the session on the server', async () => {
        const logouts = vi.fn();
        mswServer.use(
            ...shellHandlers(),
            http.get('*/api/sso/logout', () => {
                logouts();
                return ok({ loginUrl: '/sso/login?redirect=/' });
            }),
        );
        renderApp('/introduce');
        fireEvent.click(await screen.findByRole('button', { name: '测试管理员' }));
        fireEvent.click(await screen.findByRole('menuitem', { name: '退出登录' }));
        await waitFor(() => expect(logouts).toHaveBeenCalledTimes(1));
    });
});

describe('routes', () => {
    it('lands on /introduce from /', async () => {
        mswServer.use(...shellHandlers());
        renderApp('/');
        // The dashboard (its counts, pies and map are tests/resources/dashboard.test.tsx's).
        expect(await screen.findByRole('heading', { level: 1, name: '概览' })).toBeInTheDocument();
        expect(currentLocation.pathname).toBe('/introduce');
    });

    it('/accessplatform redirects to /introduce', async () => {
        mswServer.use(...shellHandlers());
        renderApp('/accessplatform');
        await waitFor(() => expect(currentLocation.pathname).toBe('/introduce'));
    });

    it("/device (the dashboard's product links, SPEC.md) opens the products", async () => {
        mswServer.use(...shellHandlers());
        renderApp('/device');
        await waitFor(() => expect(currentLocation.pathname).toBe('/product'));
    });

    it('answers an unknown path with the Chinese 404 and a way home', async () => {
        mswServer.use(...shellHandlers());
        renderApp('/no/such/page');
        expect(await screen.findByText('抱歉，您访问的页面不存在')).toBeInTheDocument();
        expect(screen.getByRole('link', { name: '返回首页' })).toHaveAttribute('href', '/introduce');
    });

    it('answers a path under a resource that no view takes (/dashboard, /dashboard/1) with the 404 too', async () => {
        for (const path of ['/dashboard', '/dashboard/1']) {
            mswServer.use(...shellHandlers());
            const { unmount } = renderApp(path);
            expect(await screen.findByText('抱歉，您访问的页面不存在')).toBeInTheDocument();
            expect(screen.getByText(path)).toBeInTheDocument();
            unmount();
        }
    });

    it('/login sends the browser to the sign-on page', async () => {
        const { authProvider, redirects } = recordingAuthProvider();
        renderApp('/login', { authProvider });
        await waitFor(() => expect(redirects).toHaveLength(1));
        const target = new URL(redirects[0]);
        expect(target.origin).toBe(window.location.origin);
        expect(target.pathname).toBe('/sso/login');
        expect(target.searchParams.get('redirect')).toBe('/');
    });
});

describe('expired session', () => {
    it('a 401 answer sends the user to the login URL the server gave', async () => {
        const loginUrl = '/sso/login?redirect=%2Fproduct';
        const expired = () =>
            HttpResponse.json({ code: 401, msg: '登录已过期，请重新登录', data: { loginUrl } }, { status: 401 });
        mswServer.use(http.get('*/api/*', expired));
        const { authProvider } = recordingAuthProvider();
        const checkError = vi.spyOn(authProvider, 'checkError');
        renderApp('/product', { authProvider });

        await waitFor(() => expect(checkError).toHaveBeenCalled());
        const { status } = checkError.mock.calls[0][0] as { status: number };
        expect(status).toBe(401);
        const outcome = await checkError.mock.results[0].value.then(
            () => undefined,
            (e: { redirectTo?: string }) => e,
        );
        const target = new URL(outcome!.redirectTo!);
        expect(target.origin).toBe(window.location.origin);
        expect(target.pathname).toBe('/sso/login');
    });
});
