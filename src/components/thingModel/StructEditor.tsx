import type { ParamForm } from './form';
import type { Unit } from './model';
import { ParamList } from './ParamList';

export interface StructEditorProps {
    value: ParamForm[];
    onChange: (members: ParamForm[]) => void;
    units: Unit[];
}

/** Members of a struct: each an identifier, a name and a data type that is not itself a struct. */
export function StructEditor({ value, onChange, units }: StructEditorProps) {
    return (
        <ParamList
            label="JSON 对象（结构体参数）"
            addLabel="添加参数"
            value={value}
            onChange={onChange}
            units={units}
            nested
        />
    );
}
