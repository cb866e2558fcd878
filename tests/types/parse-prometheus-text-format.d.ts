/** parse-prometheus-text-format ships no types: what the cluster test reads of its answer (prom2json's shape). */
declare module 'parse-prometheus-text-format' {
    interface Sample {
        labels?: Record<string, string>;
        value?: string;
        buckets?: Record<string, string>;
        quantiles?: Record<string, string>;
        count?: string;
        sum?: string;
    }
    interface MetricFamily {
        name: string;
        help: string;
        type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
        metrics: Sample[];
    }
    export default function parsePrometheusTextFormat(text: string): MetricFamily[];
}
