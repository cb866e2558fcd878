import { loadGenerated } from './generated';
import { loadGiven, refuse, type TlsMaterial } from './pem';

/**
 * The certificate every TLS listener serves (MQTTS, AMQPS, HTTPS): the files TLS_CERT_FILE / TLS_KEY_FILE name
 * (./pem.ts reads and checks them), or the local CA and server certificate made in DATA_DIR/tls/ (./generated.ts).
 */

export { generatedPaths, loadGenerated, makeCertificates, localNames } from './generated';
export { loadGiven, TlsConfigError, type TlsMaterial } from './pem';

export interface TlsSettings {
    dataDir: string;
    certFile: string | undefined;
    keyFile: string | undefined;
}

/** The certificate to serve: the given files (both or neither), else the generated ones. */
export async function loadTls(settings: TlsSettings): Promise<TlsMaterial> {
    const { certFile, keyFile } = settings;
    if (certFile && !keyFile) {
        refuse(
            certFile,
            '设置了 TLS_CERT_FILE 但没有设置 TLS_KEY_FILE',
            'TLS_CERT_FILE is set but TLS_KEY_FILE is not',
        );
    }
    if (keyFile && !certFile) {
        refuse(keyFile, '设置了 TLS_KEY_FILE 但没有设置 TLS_CERT_FILE', 'TLS_KEY_FILE is set but TLS_CERT_FILE is not');
    }
    if (certFile && keyFile) return loadGiven(certFile, keyFile);
    return loadGenerated(settings.dataDir);
}
