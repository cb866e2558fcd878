import { useState } from 'react';
import AccountCircle from '@mui/icons-material/AccountCircle';
import ArrowDropDown from '@mui/icons-material/ArrowDropDown';
import HubIcon from '@mui/icons-material/Hub';
import LogoutIcon from '@mui/icons-material/Logout';
import MenuBookOutlined from '@mui/icons-material/MenuBookOutlined';
import MenuIcon from '@mui/icons-material/Menu';
import {
    AppBar,
    Box,
    Button,
    Divider,
    Drawer,
    IconButton,
    List,
    ListItemButton,
    ListItemIcon,
    ListItemText,
    Menu,
    MenuItem,
    Toolbar,
    Typography,
} from '@mui/material';
import { Link, useLocation } from 'react-router-dom';
import { LoadingIndicator, TitlePortal, useGetIdentity, useLogout } from 'react-admin';

export const APP_NAME = '物联网设备接入管理平台';

/** The slide-out menu: the platforms the user can enter (only the access platform exists). */
function PlatformDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
    const { pathname } = useLocation();
    return (
        <Drawer anchor="left" open={open} onClose={onClose}>
            <Box component="nav" aria-label="平台导航" sx={{ width: 260 }}>
                <Typography variant="subtitle1" sx={{ px: 2, py: 1.5, fontWeight: 600 }}>
                    {APP_NAME}
                </Typography>
                <Divider />
                <List>
                    <ListItemButton
                        component={Link}
                        to="/accessplatform"
                        onClick={onClose}
                        selected={pathname !== '/platform' && pathname !== '/usercenter'}
                    >
                        <ListItemIcon>
                            <HubIcon />
                        </ListItemIcon>
                        <ListItemText primary="物联网接入平台" />
                    </ListItemButton>
                </List>
            </Box>
        </Drawer>
    );
}

function UserMenu() {
    const { identity } = useGetIdentity();
    const logout = useLogout();
    const [anchor, setAnchor] = useState<HTMLElement | null>(null);
    const name = identity?.fullName || '用户';
    return (
        <>
            <Button
                color="inherit"
                onClick={(e) => setAnchor(e.currentTarget)}
                startIcon={<AccountCircle />}
                endIcon={<ArrowDropDown />}
                aria-haspopup="menu"
                aria-controls={anchor ? 'user-menu' : undefined}
                sx={{ textTransform: 'none' }}
            >
                {name}
            </Button>
            <Menu id="user-menu" anchorEl={anchor} open={!!anchor} onClose={() => setAnchor(null)}>
                <MenuItem component={Link} to="/usercenter" onClick={() => setAnchor(null)}>
                    <ListItemIcon>
                        <AccountCircle fontSize="small" />
                    </ListItemIcon>
                    个人中心
                </MenuItem>
                <MenuItem
                    onClick={() => {
                        setAnchor(null);
                        logout();
                    }}
                >
                    <ListItemIcon>
                        <LogoutIcon fontSize="small" />
                    </ListItemIcon>
                    退出登录
                </MenuItem>
            </Menu>
        </>
    );
}

/** Top header: platform toggle, app name, page title, loading indicator, manual link, user and logout. */
export function Header() {
    const [drawer, setDrawer] = useState(false);
    return (
        <AppBar position="fixed" color="primary" sx={{ zIndex: (t) => t.zIndex.drawer + 1 }}>
            <Toolbar variant="dense" sx={{ gap: 1 }}>
                <IconButton color="inherit" edge="start" aria-label="打开平台菜单" onClick={() => setDrawer(true)}>
                    <MenuIcon />
                </IconButton>
                <Typography
                    component={Link}
                    to="/introduce"
                    variant="h6"
                    noWrap
                    sx={{ color: 'inherit', textDecoration: 'none', fontWeight: 600, fontSize: 18 }}
                >
                    {APP_NAME}
                </Typography>
                <Divider
                    orientation="vertical"
                    flexItem
                    sx={{ mx: 1, my: 1.25, borderColor: 'rgba(255,255,255,0.4)' }}
                />
                <Box sx={{ flex: 1, minWidth: 0, '& #react-admin-title': { fontSize: 15, opacity: 0.9 } }}>
                    <TitlePortal variant="subtitle1" />
                </Box>
                <LoadingIndicator />
                <Button color="inherit" component={Link} to="/usermanual" startIcon={<MenuBookOutlined />}>
                    平台手册
                </Button>
                <UserMenu />
            </Toolbar>
            <PlatformDrawer open={drawer} onClose={() => setDrawer(false)} />
        </AppBar>
    );
}

export default Header;
