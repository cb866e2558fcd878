import { Suspense } from 'react';
import { Button, Typography } from '@mui/material';
import { widgets } from '../../widgets/registry';
import { useRefresh } from '../calls';
import type { Scope, WidgetAction } from '../vocabulary';
import { EngineDialog } from './EngineDialog';
import { widgetFallback } from './fallback';
import { of } from './shared';

/** A named widget in the engine's dialog; what it changed reloads when it closes. */
export default function WidgetActionDialog({
    action,
    scope,
    resource,
    open,
    onClose,
}: {
    action: WidgetAction;
    scope: Scope;
    resource?: string;
    open: boolean;
    onClose: () => void;
}) {
    const refresh = useRefresh();
    const Widget = widgets[action.widget];
    const close = () => {
        onClose();
        void refresh(action.refresh, resource);
    };
    return (
        <EngineDialog
            open={open}
            onClose={close}
            title={of(action.title ?? action.label, scope)}
            width={action.width}
            actions={action.closeLabel ? <Button onClick={close}>{action.closeLabel}</Button> : undefined}
        >
            {Widget ? (
                <Suspense fallback={widgetFallback}>
                    <Widget scope={scope} onClose={close} {...action.props?.(scope)} />
                </Suspense>
            ) : (
                <Typography color="error">未注册的组件：{action.widget}</Typography>
            )}
        </EngineDialog>
    );
}
