// Request bodies decoded as the engine's JSON decoder does: each message below is the reference engine's (Docker
// 20.10, API 1.24) answer to the same body.
import { decodeAuthConfig, decodeCommitConfig, decodeExecConfig, decodeExecStart, decodeNetworkConnect, decodeNetworkCreate, decodeNetworkDisconnect, decodeUpdateConfig, decodeVolumeCreate } from '../../src/translate/request/bodies';

const msg = (decode: (b: unknown) => unknown, body: unknown): string => {
  try {
    decode(body);
    return 'accepted';
  } catch (e) {
    return (e as Error).message;
  }
};

test('exec create and start', () => {
  expect(msg(decodeExecConfig, { Cmd: 5 })).toBe('json: cannot unmarshal number into Go struct field ExecConfig.Cmd of type []string');
  expect(msg(decodeExecConfig, { Cmd: ['ls'], Privileged: 'yes' })).toBe('json: cannot unmarshal string into Go struct field ExecConfig.Privileged of type bool');
  expect(msg(decodeExecConfig, { Cmd: ['ls'], User: 5 })).toBe('json: cannot unmarshal number into Go struct field ExecConfig.User of type string');
  expect(msg(decodeExecConfig, { Cmd: ['ls'], Tty: 1 })).toBe('json: cannot unmarshal number into Go struct field ExecConfig.Tty of type bool');
  expect(msg(decodeExecConfig, [1])).toBe('json: cannot unmarshal array into Go value of type types.ExecConfig');
  expect(msg(decodeExecConfig, 'x')).toBe('json: cannot unmarshal string into Go value of type types.ExecConfig');
  // null leaves the zero value; a string Cmd is refused, as the reference refuses it (unlike create's)
  expect(msg(decodeExecConfig, { Cmd: ['ls'], AttachStdin: null, Unknown: { x: 1 } })).toBe('accepted');
  expect(msg(decodeExecConfig, { Cmd: 'ls' })).toBe('json: cannot unmarshal string into Go struct field ExecConfig.Cmd of type []string');
  expect(msg(decodeExecStart, { Detach: 'x' })).toBe('json: cannot unmarshal string into Go struct field ExecStartCheck.Detach of type bool');
  expect(msg(decodeExecStart, { Tty: 1 })).toBe('json: cannot unmarshal number into Go struct field ExecStartCheck.Tty of type bool');
  expect(msg(decodeExecStart, [1])).toBe('json: cannot unmarshal array into Go value of type types.ExecStartCheck');
});

test('volumes and networks', () => {
  expect(msg(decodeVolumeCreate, { Name: 5 })).toBe('json: cannot unmarshal number into Go struct field VolumeCreateBody.Name of type string');
  expect(msg(decodeVolumeCreate, { Labels: { a: 1 } })).toBe('json: cannot unmarshal number into Go struct field VolumeCreateBody.Labels of type string');
  expect(msg(decodeVolumeCreate, { DriverOpts: [1] })).toBe('json: cannot unmarshal array into Go struct field VolumeCreateBody.DriverOpts of type map[string]string');
  expect(msg(decodeVolumeCreate, [1])).toBe('json: cannot unmarshal array into Go value of type volume.VolumeCreateBody');
  expect(msg(decodeNetworkConnect, { Container: 5 })).toBe('json: cannot unmarshal number into Go struct field NetworkConnect.Container of type string');
  expect(msg(decodeNetworkConnect, { Container: 'x', EndpointConfig: { Aliases: 'a' } })).toBe('json: cannot unmarshal string into Go struct field EndpointSettings.EndpointConfig.Aliases of type []string');
  expect(msg(decodeNetworkConnect, { Container: 'x', EndpointConfig: 'x' })).toBe('json: cannot unmarshal string into Go struct field NetworkConnect.EndpointConfig of type network.EndpointSettings');
  expect(msg(decodeNetworkConnect, { Container: 'x', EndpointConfig: { IPAMConfig: { IPv4Address: 5 } } })).toBe(
    'json: cannot unmarshal number into Go struct field EndpointIPAMConfig.EndpointConfig.IPAMConfig.IPv4Address of type string',
  );
  expect(msg(decodeNetworkDisconnect, { Container: 'x', Force: '1' })).toBe('json: cannot unmarshal string into Go struct field NetworkDisconnect.Force of type bool');
  expect(msg(decodeNetworkCreate, { Name: 'n', IPAM: { Config: [{ Subnet: 5 }] } })).toBe('json: cannot unmarshal number into Go struct field IPAMConfig.IPAM.Config.Subnet of type string');
  expect(msg(decodeNetworkCreate, { Name: 'n', Internal: 'x' })).toBe('json: cannot unmarshal string into Go struct field NetworkCreateRequest.Internal of type bool');
  expect(msg(decodeNetworkCreate, { Name: 'n', IPAM: { Config: { a: 1 } } })).toBe('json: cannot unmarshal object into Go struct field IPAM.IPAM.Config of type []network.IPAMConfig');
  expect(msg(decodeNetworkCreate, { Name: 'n', IPAM: { Config: [{ AuxiliaryAddresses: { a: 1 } }] } })).toBe(
    'json: cannot unmarshal number into Go struct field IPAMConfig.IPAM.Config.AuxiliaryAddresses of type string',
  );
});

test('auth, update and commit (the reference answers these with 500; berth with 400, same message)', () => {
  expect(msg(decodeAuthConfig, { username: 5 })).toBe('json: cannot unmarshal number into Go struct field AuthConfig.username of type string');
  expect(msg(decodeAuthConfig, [1])).toBe('json: cannot unmarshal array into Go value of type types.AuthConfig');
  expect(msg(decodeUpdateConfig, { Memory: '1' })).toBe('json: cannot unmarshal string into Go struct field UpdateConfig.Memory of type int64');
  expect(msg(decodeUpdateConfig, { Memory: 1.5 })).toBe('json: cannot unmarshal number 1.5 into Go struct field UpdateConfig.Memory of type int64');
  expect(msg(decodeUpdateConfig, { BlkioWeight: -1 })).toBe('json: cannot unmarshal number -1 into Go struct field UpdateConfig.BlkioWeight of type uint16');
  expect(msg(decodeUpdateConfig, { RestartPolicy: { Name: 5 } })).toBe('json: cannot unmarshal number into Go struct field RestartPolicy.RestartPolicy.Name of type string');
  expect(msg(decodeUpdateConfig, [1])).toBe('json: cannot unmarshal array into Go value of type container.UpdateConfig');
  expect(msg(decodeCommitConfig, { Cmd: 5 })).toBe('json: cannot unmarshal number into Go struct field ContainerConfigWrapper.Cmd of type string');
  expect(msg(decodeCommitConfig, { Labels: { a: 1 } })).toBe('json: cannot unmarshal number into Go struct field ContainerConfigWrapper.Labels of type string');
  expect(msg(decodeCommitConfig, [1])).toBe('json: cannot unmarshal array into Go value of type runconfig.ContainerConfigWrapper');
});
