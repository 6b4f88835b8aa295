// Swarm, node, task and plugin endpoints until swarm mode is built: the spec's answers for a node that is not in
// a swarm (406), a clear 503 for init/join, and the reference's empty plugin list.
import type { Route, Handler } from '../http/app';
import { BerthError, notAcceptable, unavailable } from '../errors';
import { writeJSON } from '../http/respond';

const NOT_MANAGER =
  'This node is not a swarm manager. Use "docker swarm init" or "docker swarm join" to connect this node to swarm and try again.';
const NOT_IN_SWARM = 'This node is not part of a swarm';
const NO_SWARM_MODE = 'swarm mode is not available in this build of berth';

const fail = (err: () => BerthError): Handler => () => {
  throw err();
};

export function swarmRoutes(): Route[] {
  const notManager = fail(() => notAcceptable(NOT_MANAGER));
  return [
    { method: 'get', path: '/swarm', handler: notManager },
    { method: 'post', path: '/swarm/init', handler: fail(() => unavailable(NO_SWARM_MODE)) },
    { method: 'post', path: '/swarm/join', handler: fail(() => unavailable(NO_SWARM_MODE)) },
    { method: 'post', path: '/swarm/leave', handler: fail(() => notAcceptable(NOT_IN_SWARM)) },
    { method: 'post', path: '/swarm/update', handler: notManager },
    { method: 'get', path: '/nodes', handler: notManager },
    { method: 'get', path: '/nodes/:id', handler: notManager },
    { method: 'delete', path: '/nodes/:id', handler: notManager },
    { method: 'post', path: '/nodes/:id/update', handler: notManager },
    { method: 'get', path: '/tasks', handler: notManager },
    { method: 'get', path: '/tasks/:id', handler: notManager },
    { method: 'get', path: '/services', handler: notManager },
    { method: 'get', path: '/services/:id', handler: notManager },
    { method: 'get', path: '/plugins', handler: (_req, res) => writeJSON(res, 200, []) },
  ];
}
