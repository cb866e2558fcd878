import type { ReactNode } from 'react';
import { Layout as RaLayout } from 'react-admin';
import { AccessMenu } from './AccessMenu';
import { Header } from './Header';

/** react-admin's layout with the platform's header and the access-platform menu from GET /api/menu. */
export function AppLayout({ children }: { children: ReactNode }) {
    return (
        // minWidth 0: the content column may shrink below its widest table, which then scrolls inside its card
        // instead of widening the page past the window (and past the header).
        <RaLayout
            appBar={Header}
            menu={AccessMenu}
            appBarAlwaysOn
            sx={{
                minWidth: 0,
                '& .RaLayout-appFrame, & .RaLayout-contentWithSidebar, & .RaLayout-content': { minWidth: 0 },
            }}
        >
            {children}
        </RaLayout>
    );
}

export default AppLayout;
