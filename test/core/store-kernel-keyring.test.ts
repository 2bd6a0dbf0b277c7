// Finding an earlier svc's copies in the Linux kernel keyring (src/credentials/kernel-keyring.ts)
// from /proc/keys text as the kernel writes it; deleting them for real is in
// test/real/no-secret-service.test.ts.
import { describe, expect, it } from 'vitest';
import { kernelCopiesOf, listKernelKeys, svcKernelKeys } from '../../src/credentials/kernel-keyring.js';

const PROC_KEYS = [
  '0cb012db I--Q---     1 perm 3f010000     0     0 user      keyring:work:t1@svc: 41',
  '1867c538 I--Q---     1 perm 3f010000     0     0 user      default:oauth@svc: 612',
  '3a83d757 I--Q--i     1 perm 3f010000     0     0 user      keyring:work:gone@svc: 7',
  '30ecfba6 I------     2   3d 1f030000     0 65534 keyring   _persistent.0: empty',
  '2a0aab93 I--Q---     1 perm 3f010000     0     0 user      keyring:other:t1@svc-test-probe: 5',
  '',
].join('\n');

describe('the kernel keyring, read from /proc/keys', () => {
  it('lists user keys by description, and tells an invalidated one (on its way out)', () => {
    expect(listKernelKeys(() => PROC_KEYS)).toEqual([
      { description: 'keyring:work:t1@svc', invalidated: false },
      { description: 'default:oauth@svc', invalidated: false },
      { description: 'keyring:work:gone@svc', invalidated: true },
      { description: 'keyring:other:t1@svc-test-probe', invalidated: false },
    ]);
    expect(
      listKernelKeys(() => {
        throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
      }),
    ).toBeNull();
  });

  it("finds a secret's copies with or without the addon's keyring: prefix, and tries both where /proc/keys is missing", () => {
    const keys = listKernelKeys(() => PROC_KEYS);
    expect(kernelCopiesOf('svc', 'work:t1', keys)).toEqual({ descriptions: ['keyring:work:t1@svc'], listed: true });
    expect(kernelCopiesOf('svc', 'default:oauth', keys)).toEqual({ descriptions: ['default:oauth@svc'], listed: true });
    expect(kernelCopiesOf('svc', 'work:gone', keys)).toEqual({ descriptions: [], listed: true });
    expect(kernelCopiesOf('svc', 'work:t1', null)).toEqual({ descriptions: ['keyring:work:t1@svc', 'work:t1@svc'], listed: false });
  });

  it("lists svc's copies with their accounts, not another service's", () => {
    expect(
      svcKernelKeys(
        'svc',
        listKernelKeys(() => PROC_KEYS),
      ),
    ).toEqual([
      { description: 'keyring:work:t1@svc', account: 'work:t1' },
      { description: 'default:oauth@svc', account: 'default:oauth' },
    ]);
  });
});
