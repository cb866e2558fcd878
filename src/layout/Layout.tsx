import type { ReactNode } from 'react';
import { Layout as RaLayout } from 'react-admin';
import { AccessMenu } from './AccessMenu';
import { Header } from './Header';

/** react-admin's layout with the platform's header and the access-platform menu from GET /api/menu. */
export function AppLayout({ children }: { children: ReactNode }) {
    return (
        <RaLayout appBar={Header} menu={AccessMenu} appBarAlwaysOn>
            {children}
        </RaLayout>
    );
}

export default AppLayout;
