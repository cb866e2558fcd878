import { createContext, useContext, useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import AdminPanelSettingsIcon from '@mui/icons-material/AdminPanelSettings';
import AppsIcon from '@mui/icons-material/Apps';
import ArticleOutlinedIcon from '@mui/icons-material/ArticleOutlined';
import ExpandLess from '@mui/icons-material/ExpandLess';
import ExpandMore from '@mui/icons-material/ExpandMore';
import FolderOutlinedIcon from '@mui/icons-material/FolderOutlined';
import HelpOutlineIcon from '@mui/icons-material/HelpOutline';
import HubIcon from '@mui/icons-material/Hub';
import MonitorHeartIcon from '@mui/icons-material/MonitorHeart';
import AccountTreeIcon from '@mui/icons-material/AccountTree';
import RouterIcon from '@mui/icons-material/Router';
import {
    Box,
    Button,
    Collapse,
    List,
    ListItemButton,
    ListItemIcon,
    ListItemText,
    Skeleton,
    Tooltip,
    Typography,
} from '@mui/material';
import { Link, useLocation } from 'react-router-dom';
import { useDataProvider, useSidebarState } from 'react-admin';
import type { PlatformDataProvider } from '../engine/choices';
import { useRegistry } from '../engine/registry';
import { buildMenu, menuFilter, entryActive, type MenuEntry, type SectionSpec } from './menuModel';
import { SHELL_API, type MenuAnswer } from './shellApi';

/** The menu's sections; their entries, labels, icons and order come from the definitions' `menu`. */
const SECTIONS: SectionSpec[] = [
    { label: '设备接入', order: 30, icon: HubIcon },
    { label: '规则引擎', order: 35, icon: AccountTreeIcon },
    { label: '监控运维', order: 40, icon: MonitorHeartIcon },
    { label: '系统管理', order: 90, icon: AdminPanelSettingsIcon },
    { label: '应用管理', order: 50, icon: AppsIcon },
    { label: '帮助中心', order: 60, icon: HelpOutlineIcon },
    { label: '边缘计算', order: 45, icon: RouterIcon },
];

/** The whole menu, so an entry is lit only when it is the most specific match of the path. */
const WholeMenu = createContext<MenuEntry[] | undefined>(undefined);

function EntryIcon({ entry }: { entry: MenuEntry }) {
    const Icon = entry.icon ?? (entry.children ? FolderOutlinedIcon : ArticleOutlinedIcon);
    return <Icon />;
}

function MenuLeaf({
    entry,
    depth,
    pathname,
    open,
}: {
    entry: MenuEntry;
    depth: number;
    pathname: string;
    open: boolean;
}) {
    const active = entryActive(entry, pathname, useContext(WholeMenu));
    const item = (
        <ListItemButton
            component={Link}
            to={entry.to!}
            selected={active}
            aria-current={active ? 'page' : undefined}
            sx={{ pl: open ? 2 + depth * 2 : 2 }}
        >
            <ListItemIcon sx={{ minWidth: 36 }}>
                <EntryIcon entry={entry} />
            </ListItemIcon>
            <ListItemText primary={entry.label} slotProps={{ primary: { noWrap: true } }} />
        </ListItemButton>
    );
    // A collapsed sidebar shows icons only: the name comes back as a tooltip.
    return open ? (
        item
    ) : (
        <Tooltip title={entry.label} placement="right">
            {item}
        </Tooltip>
    );
}

function MenuItems({
    entries,
    depth,
    pathname,
    open,
}: {
    entries: MenuEntry[];
    depth: number;
    pathname: string;
    open: boolean;
}) {
    return (
        <>
            {entries.map((entry) =>
                entry.children ? (
                    <MenuGroup key={entry.key} entry={entry} depth={depth} pathname={pathname} sidebarOpen={open} />
                ) : (
                    <MenuLeaf key={entry.key} entry={entry} depth={depth} pathname={pathname} open={open} />
                ),
            )}
        </>
    );
}

function MenuGroup({
    entry,
    depth,
    pathname,
    sidebarOpen,
}: {
    entry: MenuEntry;
    depth: number;
    pathname: string;
    sidebarOpen: boolean;
}) {
    const [expanded, setExpanded] = useState(true);
    const whole = useContext(WholeMenu);
    const id = `menu-group-${entry.key.replace(/\W/g, '')}`;
    return (
        <>
            <ListItemButton
                onClick={() => setExpanded(!expanded)}
                aria-expanded={expanded}
                aria-controls={id}
                sx={{ pl: sidebarOpen ? 2 + depth * 2 : 2 }}
            >
                <ListItemIcon
                    sx={{ minWidth: 36, color: entryActive(entry, pathname, whole) ? 'primary.main' : undefined }}
                >
                    <EntryIcon entry={entry} />
                </ListItemIcon>
                <ListItemText primary={entry.label} slotProps={{ primary: { noWrap: true } }} />
                {expanded ? <ExpandLess fontSize="small" /> : <ExpandMore fontSize="small" />}
            </ListItemButton>
            <Collapse in={expanded} timeout="auto" id={id}>
                <List disablePadding>
                    <MenuItems
                        entries={entry.children ?? []}
                        depth={depth + 1}
                        pathname={pathname}
                        open={sidebarOpen}
                    />
                </List>
            </Collapse>
        </>
    );
}

/**
 * The access platform's left menu: entries from the definitions' `menu` alone; GET /api/menu's `access` says which
 * of their rights this user's role has (an older answer without it: the routes its tree lists).
 */
export function AccessMenu() {
    const dataProvider = useDataProvider<PlatformDataProvider>();
    const definitions = useRegistry();
    const { pathname } = useLocation();
    const [open] = useSidebarState();
    const menu = useQuery({
        queryKey: ['shell', 'menu'],
        queryFn: async () => (await dataProvider.invoke<MenuAnswer>(SHELL_API.name, 'menu')).data,
        staleTime: 5 * 60_000,
        retry: false,
    });
    const entries = useMemo(() => buildMenu(definitions, menuFilter(menu.data), SECTIONS), [definitions, menu.data]);
    if (menu.isPending) {
        return (
            <Box sx={{ p: 2 }} aria-busy="true">
                {[0, 1, 2].map((i) => (
                    <Skeleton key={i} height={36} />
                ))}
            </Box>
        );
    }
    if (menu.isError) {
        return (
            <Box sx={{ p: 2 }}>
                <Typography variant="body2" color="error" gutterBottom>
                    菜单加载失败
                </Typography>
                <Button size="small" onClick={() => menu.refetch()}>
                    重试
                </Button>
            </Box>
        );
    }
    return (
        <nav aria-label="接入平台菜单">
            <List dense={false} sx={{ py: 1 }}>
                <WholeMenu.Provider value={entries}>
                    <MenuItems entries={entries} depth={0} pathname={pathname} open={open} />
                </WholeMenu.Provider>
            </List>
        </nav>
    );
}

export default AccessMenu;
