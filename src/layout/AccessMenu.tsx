import { useState, type ComponentType } from 'react';
import { useQuery } from '@tanstack/react-query';
import ArticleOutlinedIcon from '@mui/icons-material/ArticleOutlined';
import AccountTreeIcon from '@mui/icons-material/AccountTree';
import DashboardIcon from '@mui/icons-material/Dashboard';
import DevicesIcon from '@mui/icons-material/Devices';
import DevicesOtherIcon from '@mui/icons-material/DevicesOther';
import ExpandLess from '@mui/icons-material/ExpandLess';
import ExpandMore from '@mui/icons-material/ExpandMore';
import FolderOutlinedIcon from '@mui/icons-material/FolderOutlined';
import HistoryIcon from '@mui/icons-material/History';
import HubIcon from '@mui/icons-material/Hub';
import Inventory2Icon from '@mui/icons-material/Inventory2';
import VideoCameraBackIcon from '@mui/icons-material/VideoCameraBack';
import WorkspacesIcon from '@mui/icons-material/Workspaces';
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
import resources from '../../resources';
import type { PlatformDataProvider } from '../engine/choices';
import { resourcePath } from '../engine/context';
import { isActive, isGroup, menuTarget, SHELL_API, type MenuNode, type RelatedRoutes } from './shellApi';

/** A resource's own routes ('/productDetail/*') light up its menu entry ('/product'). */
const RELATED: RelatedRoutes = Object.fromEntries(
    resources.map((d) => [`/${resourcePath(d)}`, (d.routes ?? []).map((r) => r.path.replace(/\/\*$/, ''))]),
);

/** Icons the menu call may name (@mui/icons-material export names); importing them all would weigh megabytes. */
const ICONS: Record<string, ComponentType> = {
    Dashboard: DashboardIcon,
    Hub: HubIcon,
    Inventory2: Inventory2Icon,
    History: HistoryIcon,
    Devices: DevicesIcon,
    DevicesOther: DevicesOtherIcon,
    VideoCameraBack: VideoCameraBackIcon,
    Workspaces: WorkspacesIcon,
    AccountTree: AccountTreeIcon,
};

function NodeIcon({ node }: { node: MenuNode }) {
    const Icon = (node.icon && ICONS[node.icon]) || (isGroup(node) ? FolderOutlinedIcon : ArticleOutlinedIcon);
    return <Icon />;
}

function MenuLeaf({ node, depth, pathname, open }: { node: MenuNode; depth: number; pathname: string; open: boolean }) {
    const active = isActive(node, pathname, RELATED);
    const item = (
        <ListItemButton
            component={Link}
            to={menuTarget(node)}
            selected={active}
            aria-current={active ? 'page' : undefined}
            sx={{ pl: open ? 2 + depth * 2 : 2 }}
        >
            <ListItemIcon sx={{ minWidth: 36 }}>
                <NodeIcon node={node} />
            </ListItemIcon>
            <ListItemText primary={node.name} slotProps={{ primary: { noWrap: true } }} />
        </ListItemButton>
    );
    // A collapsed sidebar shows icons only: the name comes back as a tooltip.
    return open ? (
        item
    ) : (
        <Tooltip title={node.name} placement="right">
            {item}
        </Tooltip>
    );
}

function MenuItems({
    nodes,
    depth,
    pathname,
    open,
}: {
    nodes: MenuNode[];
    depth: number;
    pathname: string;
    open: boolean;
}) {
    return (
        <>
            {nodes.map((node) =>
                isGroup(node) ? (
                    <MenuGroup key={node.id} node={node} depth={depth} pathname={pathname} sidebarOpen={open} />
                ) : (
                    <MenuLeaf key={node.id} node={node} depth={depth} pathname={pathname} open={open} />
                ),
            )}
        </>
    );
}

function MenuGroup({
    node,
    depth,
    pathname,
    sidebarOpen,
}: {
    node: MenuNode;
    depth: number;
    pathname: string;
    sidebarOpen: boolean;
}) {
    const [expanded, setExpanded] = useState(true);
    const id = `menu-group-${node.id}`;
    return (
        <>
            <ListItemButton
                onClick={() => setExpanded(!expanded)}
                aria-expanded={expanded}
                aria-controls={id}
                sx={{ pl: sidebarOpen ? 2 + depth * 2 : 2 }}
            >
                <ListItemIcon
                    sx={{ minWidth: 36, color: isActive(node, pathname, RELATED) ? 'primary.main' : undefined }}
                >
                    <NodeIcon node={node} />
                </ListItemIcon>
                <ListItemText primary={node.name} slotProps={{ primary: { noWrap: true } }} />
                {expanded ? <ExpandLess fontSize="small" /> : <ExpandMore fontSize="small" />}
            </ListItemButton>
            <Collapse in={expanded} timeout="auto" id={id}>
                <List disablePadding>
                    <MenuItems nodes={node.children ?? []} depth={depth + 1} pathname={pathname} open={sidebarOpen} />
                </List>
            </Collapse>
        </>
    );
}

/** The access platform's left menu, built from GET /api/menu (its root's children). */
export function AccessMenu() {
    const dataProvider = useDataProvider<PlatformDataProvider>();
    const { pathname } = useLocation();
    const [open] = useSidebarState();
    const menu = useQuery({
        queryKey: ['shell', 'menu'],
        queryFn: async () => (await dataProvider.invoke<MenuNode>(SHELL_API.name, 'menu')).data,
        staleTime: 5 * 60_000,
        retry: false,
    });
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
                <MenuItems nodes={menu.data?.children ?? []} depth={0} pathname={pathname} open={open} />
            </List>
        </nav>
    );
}

export default AccessMenu;
