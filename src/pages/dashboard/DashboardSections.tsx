import { Box } from '@mui/material';
import { AlertTable } from './AlertTable';
import { LocationMap } from './LocationMap';
import { ProjectCards } from './ProjectCards';

/** The dashboard below the charts: 我的项目, 告警事件 and 设备分布 (one lazy chunk; the map's code is its own). */
export default function DashboardSections() {
    return (
        <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2, minWidth: 0 }}>
            <ProjectCards />
            <AlertTable />
            <LocationMap />
        </Box>
    );
}
