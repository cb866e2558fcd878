import { lazy, Suspense, useContext, useState, type MouseEvent, type ReactNode } from 'react';
import { Box, Button, CircularProgress, Switch, Tooltip, Typography, type ButtonProps } from '@mui/material';
import { Confirm, DataProviderContext, useDataProvider } from 'react-admin';
import { Link, useSearchParams } from 'react-router-dom';
import { runCall, useCall } from '../calls';
import type { PlatformDataProvider } from '../choices';
import { callParams, callResource } from '../calls';
import type {
    Action,
    CallAction,
    CopyAction,
    DownloadAction,
    LinkAction,
    Row,
    Scope,
    SwitchAction,
} from '../vocabulary';
import { copyText } from './copy';
import FormActionDialog from './FormAction';
import { failureText, of, ROW_SX, useActionResource, useAfterSuccess, useToast } from './shared';
import { useCan } from '../rights';
import { RevealDialog } from './RevealDialog';
import { ProgressBar } from '../Progress';

// Upload and widget dialogs load on first use. The form dialog is in FormDialog's static graph already, so
// a lazy import of it would move nothing (Vite's INEFFECTIVE_DYNAMIC_IMPORT).
const UploadActionDialog = lazy(() => import('./UploadAction'));
const WidgetActionDialog = lazy(() => import('./WidgetAction'));
const DialogActionDialog = lazy(() => import('./DialogAction'));

/** A confirmation's text; its lines ('\n') become paragraphs. */
function confirmText(text: string): ReactNode {
    if (!text.includes('\n')) return text;
    return (
        <Box>
            {text.split('\n').map((line, i) => (
                <Typography key={i} sx={{ mt: i ? 1 : 0 }}>
                    {line}
                </Typography>
            ))}
        </Box>
    );
}

export interface ActionButtonProps {
    action: Action;
    scope: Scope;
    /** Resource whose calls the action runs by default (default: the definition in context). */
    resource?: string;
    /** Row buttons are small text buttons; toolbar buttons follow the action's variant. */
    size?: 'small' | 'medium';
}

// Rows are often clickable themselves: a button's click is the button's alone.
const stop = (e: MouseEvent) => e.stopPropagation();

interface FaceProps {
    action: Action;
    scope: Scope;
    size: 'small' | 'medium';
    onClick?: () => void;
    busy?: boolean;
    /** Extra props of the MUI Button (a link's component and route). */
    button?: Partial<ButtonProps> & { to?: string };
}

/** The button itself: label and icon from the action, disabled (with the reason as tooltip) from the scope. */
const PAGE_FACE = { display: 'inline-flex', alignItems: 'center', gap: 1 } as const;
/** A row's button keeps its own size while it runs: the bar floats under it, so the row's columns do not move. */
const ROW_FACE = { position: 'relative', display: 'inline-flex', alignItems: 'center' } as const;
const ROW_BAR = {
    position: 'absolute',
    top: '100%',
    left: 0,
    zIndex: 2,
    px: 0.75,
    py: 0.25,
    borderRadius: 1,
    bgcolor: 'background.paper',
    boxShadow: 1,
    pointerEvents: 'none',
} as const;

function ActionFace({ action, scope, size, onClick, busy, button }: FaceProps) {
    const toast = useToast();
    const why = action.disabled?.(scope) ?? false;
    const disabled = !!why || !!busy;
    const Icon = action.icon;
    const row = size === 'small';
    const face = (
        <Button
            size={size}
            variant={row ? 'text' : action.variant}
            color={action.color ?? 'primary'}
            startIcon={Icon ? <Icon /> : undefined}
            disabled={disabled}
            aria-label={action.ariaLabel?.(scope)}
            sx={row ? ROW_SX : { whiteSpace: 'nowrap' }}
            {...(disabled ? {} : button)}
            onClick={(e: MouseEvent) => {
                stop(e);
                // `guard`: a reason the action cannot run now is said, and nothing runs.
                const problem = action.guard?.(scope);
                if (problem) toast(problem, 'warning');
                else onClick?.();
            }}
        >
            {of(action.label, scope)}
        </Button>
    );
    if (typeof why !== 'string' || !why) return face;
    // A disabled button sends no pointer events; the span lets the tooltip say why.
    return (
        <Tooltip title={why}>
            <span>{face}</span>
        </Tooltip>
    );
}

function LinkButton({ action, scope, size }: { action: LinkAction; scope: Scope; size: 'small' | 'medium' }) {
    return <ActionFace action={action} scope={scope} size={size} button={{ component: Link, to: action.to(scope) }} />;
}

function CopyButton({ action, scope, size }: { action: CopyAction; scope: Scope; size: 'small' | 'medium' }) {
    const toast = useToast();
    const copy = async () => {
        const done = await copyText(action.value(scope));
        toast(done ? '复制成功' : '复制失败', done ? 'success' : 'error');
    };
    return <ActionFace action={action} scope={scope} size={size} onClick={() => void copy()} />;
}

function DownloadButton(props: { action: DownloadAction; scope: Scope; size: 'small' | 'medium'; resource?: string }) {
    const { action, scope, size, resource } = props;
    // url() answers synchronously, so it is asked of the provider itself (useDataProvider's proxy wants promises).
    const dataProvider = useContext(DataProviderContext) as unknown as PlatformDataProvider;
    const saving = useSaveAs(action, scope, resource);
    const download = () => {
        if (action.saveAs) return void saving.save();
        const url = dataProvider.url(
            callResource(action.call, resource),
            action.call.call,
            callParams(action.call, scope),
        );
        // An <a download> lets the browser keep the page and save the answer under the server's file name.
        const a = document.createElement('a');
        a.href = url;
        a.download = '';
        a.rel = 'noopener';
        document.body.appendChild(a);
        a.click();
        a.remove();
    };
    return <ActionFace action={action} scope={scope} size={size} onClick={download} busy={saving.busy} />;
}

/** `saveAs`: the call's answer, asked through the data provider, saved by the browser as a JSON file. */
function useSaveAs(action: DownloadAction, scope: Scope, resource?: string) {
    const dataProvider = useDataProvider<PlatformDataProvider>();
    const toast = useToast();
    const [busy, setBusy] = useState(false);
    const save = async () => {
        setBusy(true);
        try {
            const answer = await runCall(dataProvider, action.call, scope, resource);
            const blob = new Blob([JSON.stringify(answer, null, 2)], { type: 'application/json;charset=utf-8' });
            const url = URL.createObjectURL(blob);
            const a = document.createElement('a');
            a.href = url;
            a.download = action.saveAs!(scope);
            document.body.appendChild(a);
            a.click();
            a.remove();
            // Revoked after the click is handled, or some browsers cancel the download.
            setTimeout(() => URL.revokeObjectURL(url), 1000);
        } catch (error) {
            toast(failureText(error, action.failure), 'error');
        } finally {
            setBusy(false);
        }
    };
    return { save, busy };
}

function CallButton(props: {
    action: CallAction;
    scope: Scope;
    size: 'small' | 'medium';
    resource?: string;
    /** Another face than a button (a switch): it gets the click and whether the call runs. */
    face?: (click: () => void, running: boolean) => ReactNode;
}) {
    const { action, scope, size, resource, face } = props;
    const dataProvider = useDataProvider<PlatformDataProvider>();
    const after = useAfterSuccess(resource);
    const toast = useToast();
    const [asking, setAsking] = useState(false);
    const [running, setRunning] = useState(false);
    const [revealed, setRevealed] = useState<unknown>(undefined);
    const fresh = useCall<unknown>(action.confirmLoad, scope, {
        enabled: asking && !!action.confirmLoad,
        staleTime: 0,
    });
    const loaded = fresh.data && typeof fresh.data === 'object' ? (fresh.data as Row) : undefined;
    const confirmScope = loaded ? { ...scope, record: { ...scope.record, ...loaded } } : scope;

    const run = async () => {
        setRunning(true);
        try {
            const answer = await runCall(dataProvider, action.call, scope, resource);
            if (action.reveal) setRevealed(answer ?? {});
            await after({ ...action, callResource: action.call.resource }, answer, scope);
        } catch (error) {
            toast(failureText(error, action.failure), 'error');
        } finally {
            setRunning(false);
            setAsking(false);
        }
    };

    const click = () => {
        const problem = action.guard?.(scope);
        if (problem) toast(problem, 'warning');
        else if (action.confirm) setAsking(true);
        else void run();
    };
    return (
        <>
            {face ? (
                face(click, running)
            ) : (
                <Box component="span" sx={size === 'small' ? ROW_FACE : PAGE_FACE}>
                    <ActionFace
                        action={action}
                        scope={scope}
                        size={size}
                        busy={running}
                        onClick={() => (action.confirm ? setAsking(true) : void run())}
                    />
                    {/* While it runs, the same bar as a progress field says what is happening, not only a greyed button. */}
                    {running && action.progress !== false ? (
                        <Box component="span" sx={size === 'small' ? ROW_BAR : undefined} data-progress-overlay>
                            <ProgressBar
                                label={of(action.label, scope)}
                                text={action.progress ? of(action.progress, scope) : `正在${of(action.label, scope)}…`}
                                width={size === 'small' ? 60 : 100}
                            />
                        </Box>
                    ) : null}
                </Box>
            )}
            {action.confirm ? (
                <Confirm
                    isOpen={asking}
                    loading={running}
                    title={action.confirmTitle ?? '提示'}
                    content={
                        action.confirmLoad ? (
                            <>
                                {confirmText(asking ? of(action.confirm, confirmScope) : '')}
                                {asking && fresh.isFetching ? (
                                    <CircularProgress size={16} sx={{ mt: 1 }} aria-label="加载中" />
                                ) : null}
                            </>
                        ) : (
                            confirmText(of(action.confirm, scope))
                        )
                    }
                    confirm="确定"
                    cancel="取消"
                    onConfirm={() => void run()}
                    onClose={() => setAsking(false)}
                />
            ) : null}
            {action.reveal && revealed !== undefined ? (
                <RevealDialog
                    spec={action.reveal}
                    answer={revealed}
                    scope={scope}
                    onClose={() => setRevealed(undefined)}
                />
            ) : null}
        </>
    );
}

/** A switch: checked from the scope; turning it runs `off` (when checked) or `on`, each a call action. */
function SwitchButton(props: { action: SwitchAction; scope: Scope; size: 'small' | 'medium'; resource?: string }) {
    const { action, scope, size, resource } = props;
    const checked = action.checked(scope);
    const next = checked ? action.off : action.on;
    const why = action.disabled?.(scope) ?? false;
    return (
        <CallButton
            action={next}
            scope={scope}
            size={size}
            resource={resource}
            face={(click, running) => {
                const control = (
                    <Tooltip title={typeof why === 'string' ? why : of(action.label, scope)}>
                        <span>
                            <Switch
                                size="small"
                                checked={checked}
                                disabled={!!why || running}
                                onClick={stop}
                                onChange={click}
                                slotProps={{
                                    input: { 'aria-label': action.ariaLabel?.(scope) ?? of(action.label, scope) },
                                }}
                            />
                        </span>
                    </Tooltip>
                );
                // `text`: a caption beside the switch (a settings row: 动态注册), not only its tooltip.
                if (!action.text) return control;
                return (
                    <Box component="span" sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5, mr: 1 }}>
                        {control}
                        <Typography variant="body2" component="span">
                            {of(action.text, scope)}
                        </Typography>
                    </Box>
                );
            }}
        />
    );
}

/** Form, upload and widget actions: the button opens the action's dialog (loaded on the first click). */
function DialogButton(props: {
    action: Extract<Action, { kind: 'form' | 'upload' | 'widget' | 'dialog' }>;
    scope: Scope;
    size: 'small' | 'medium';
    resource?: string;
}) {
    const { action, scope, size, resource } = props;
    // `openWith`: a URL such as ?type=program opens the dialog; closing it drops the param.
    const opener = action.kind === 'form' ? action.openWith : undefined;
    const [search, setSearch] = useSearchParams();
    const asked = !!opener && search.has(opener.query) && (!opener.value || search.get(opener.query) === opener.value);
    const [open, setOpen] = useState(asked);
    // Stays mounted after closing, so the dialog's exit transition plays.
    const [used, setUsed] = useState(asked);
    const close = () => {
        setOpen(false);
        if (opener && search.has(opener.query)) {
            setSearch(
                (now) => {
                    const next = new URLSearchParams(now);
                    next.delete(opener.query);
                    return next;
                },
                { replace: true },
            );
        }
    };
    let dialog: ReactNode = null;
    if (used) {
        const common = { scope, resource, open, onClose: close };
        if (action.kind === 'form') dialog = <FormActionDialog action={action} {...common} />;
        else if (action.kind === 'upload') {
            const extra = action.extra?.length ? (
                <ActionBar actions={action.extra} scope={scope} resource={resource} size="small" />
            ) : undefined;
            dialog = <UploadActionDialog action={action} extra={extra} {...common} />;
        } else if (action.kind === 'dialog') dialog = <DialogActionDialog action={action} {...common} />;
        else dialog = <WidgetActionDialog action={action} {...common} />;
    }
    return (
        <>
            <ActionFace
                action={action}
                scope={scope}
                size={size}
                onClick={() => {
                    setUsed(true);
                    setOpen(true);
                }}
            />
            <Suspense fallback={null}>{dialog}</Suspense>
        </>
    );
}

/** One action as a button; it hides itself when `when` fails. */
export function ActionButton({ action, scope, resource: given, size = 'medium' }: ActionButtonProps) {
    const resource = useActionResource(given);
    const can = useCan();
    if (!can(action.right)) return null;
    if (action.when && !action.when(scope)) return null;
    switch (action.kind) {
        case 'link':
            return <LinkButton action={action} scope={scope} size={size} />;
        case 'copy':
            return <CopyButton action={action} scope={scope} size={size} />;
        case 'download':
            return <DownloadButton action={action} scope={scope} size={size} resource={resource} />;
        case 'call':
            return <CallButton action={action} scope={scope} size={size} resource={resource} />;
        case 'form':
        case 'upload':
        case 'widget':
        case 'dialog':
            return <DialogButton action={action} scope={scope} size={size} resource={resource} />;
        case 'switch':
            return <SwitchButton action={action} scope={scope} size={size} resource={resource} />;
    }
}

const keyOf = (action: Action, i: number) => action.key ?? (typeof action.label === 'string' ? action.label : i);

/** Several actions side by side (a toolbar, a row's 操作 column, a detail header). */
export function ActionBar({
    actions,
    scope,
    resource,
    size = 'medium',
}: {
    actions: Action[];
    scope: Scope;
    resource?: string;
    size?: 'small' | 'medium';
}) {
    return (
        <Box
            sx={{
                display: 'flex',
                alignItems: 'center',
                flexWrap: size === 'small' ? 'nowrap' : 'wrap',
                gap: size === 'small' ? 0.25 : 1,
            }}
        >
            {actions.map((action, i) => (
                <ActionButton key={keyOf(action, i)} action={action} scope={scope} resource={resource} size={size} />
            ))}
        </Box>
    );
}
