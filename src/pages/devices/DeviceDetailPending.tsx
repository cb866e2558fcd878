import { Alert, AlertTitle, Box, Breadcrumbs, Typography } from '@mui/material';
import { Link, useLocation, useParams } from 'react-router-dom';
import { Title } from 'react-admin';

/**
 * Where the device tables' 查看 and 子设备 links land until the device detail screens (their own issue) exist:
 * the link is already the final route, so bookmarks made now keep working.
 */
export default function DeviceDetailPending() {
    const { deviceName, deviceId } = useParams();
    const { pathname } = useLocation();
    const fromInstances = pathname.startsWith('/devInstanceDetail');
    const back = fromInstances ? '/deviceInstance' : '/devices';
    const name = deviceName ? decodeURIComponent(deviceName) : `ID ${deviceId ?? ''}`;
    return (
        <Box sx={{ p: { xs: 1, md: 2 } }}>
            <Title title="设备详情" />
            <Breadcrumbs aria-label="breadcrumb" sx={{ mb: 2 }}>
                <Link to={back}>设备管理</Link>
                <Typography color="text.primary">设备详情</Typography>
            </Breadcrumbs>
            <Alert severity="info">
                <AlertTitle>设备详情即将上线</AlertTitle>
                设备 {name} 的详情页（设备信息、Topic、运行状态、子设备）将在后续版本提供。
                <Link to={back}>返回设备列表</Link>
            </Alert>
        </Box>
    );
}
