import { Box, CircularProgress } from '@mui/material';

/** Shown while a widget's chunk loads. */
export const widgetFallback = (
    <Box sx={{ display: 'flex', justifyContent: 'center', py: 3 }}>
        <CircularProgress size={24} aria-label="加载中" />
    </Box>
);
