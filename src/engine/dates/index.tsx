/**
 * The date inputs as the engine uses them: each loads the pickers (./Pickers, @mui/x-date-pickers) in a chunk of its
 * own the first time one is shown, and keeps the input's place with a quiet field meanwhile.
 */
import { lazy, Suspense } from 'react';
import { TextField } from '@mui/material';
import type { FilterSpec } from '../vocabulary';
import type { FormDateProps } from './Pickers';
import type { FormTimeRangeProps } from './TimeRange';

const FormDate = lazy(() => import('./Pickers').then((m) => ({ default: m.FormDateInput })));
const FormTimeRange = lazy(() => import('./TimeRange').then((m) => ({ default: m.FormTimeRangeInput })));
const RangeFilter = lazy(() => import('./Pickers').then((m) => ({ default: m.DateRangeFilterPickers })));

/** The input's place while the pickers load: its label as a placeholder, not a labelled input a test or reader could take for it. */
const Placeholder = ({ label, width }: { label: string; width?: number }) => (
    <TextField size="small" margin="dense" placeholder={label} disabled aria-busy sx={{ width: width ?? '100%' }} />
);

export function DateInput(props: FormDateProps) {
    return (
        <Suspense fallback={<Placeholder label={props.label} />}>
            <FormDate {...props} />
        </Suspense>
    );
}

/** A time range that may cross midnight (input 'timeRange'): 开始 至 结束, 次日 beside an end not after the start. */
export function TimeRangeInput(props: FormTimeRangeProps) {
    return (
        <Suspense fallback={<Placeholder label={props.label} />}>
            <FormTimeRange {...props} />
        </Suspense>
    );
}

export function DateRangeFilter(props: {
    filter: FilterSpec;
    from: string;
    to: string;
    onChange: (from: string, to: string) => void;
}) {
    return (
        <Suspense fallback={<Placeholder label={props.filter.label} width={440} />}>
            <RangeFilter {...props} />
        </Suspense>
    );
}

export type { FormDateProps } from './Pickers';
