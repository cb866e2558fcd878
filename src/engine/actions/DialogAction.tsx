import { useMemo } from 'react';
import { Button } from '@mui/material';
import { useSearchParams } from 'react-router-dom';
import { Sections } from '../page/Sections';
import { ScopeProvider } from '../scope';
import type { DialogAction, Scope, Section } from '../vocabulary';
import { EngineDialog } from './EngineDialog';
import { of } from './shared';

/** The URL prefixes of the lists among these sections (nested rows and tabs included). */
function listPrefixes(sections: Section[]): string[] {
    return sections.flatMap((s) => {
        if (s.kind === 'list') return s.list.urlPrefix ? [s.list.urlPrefix] : [];
        if (s.kind === 'row') return listPrefixes(s.sections);
        if (s.kind === 'tabs') return s.tabs.flatMap((t) => listPrefixes(t.sections));
        return [];
    });
}

/** Sections in the engine's dialog with the row as their record; closing it drops its lists' URL state. */
export default function DialogActionDialog({
    action,
    scope,
    open,
    onClose,
}: {
    action: DialogAction;
    scope: Scope;
    open: boolean;
    onClose: () => void;
}) {
    const [, setSearch] = useSearchParams();
    const value = useMemo(() => ({ record: scope.record }), [scope.record]);
    const close = () => {
        const prefixes = listPrefixes(action.sections);
        if (prefixes.length) {
            setSearch(
                (now) => {
                    const next = new URLSearchParams(now);
                    for (const key of [...next.keys()]) if (prefixes.some((p) => key.startsWith(p))) next.delete(key);
                    return next;
                },
                { replace: true },
            );
        }
        onClose();
    };
    return (
        <EngineDialog
            open={open}
            onClose={close}
            title={of(action.title ?? action.label, scope)}
            width={action.width ?? 'md'}
            actions={<Button onClick={close}>关闭</Button>}
        >
            {open ? (
                <ScopeProvider value={value}>
                    <Sections sections={action.sections} />
                </ScopeProvider>
            ) : null}
        </EngineDialog>
    );
}
