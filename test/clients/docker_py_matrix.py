#!/usr/bin/python3
# docker-py (Debian's python3-docker) against a berth socket, called the way its users call it. Each case prints
# one JSON line {"case": name, "result": ...} or {"case": name, "error": "..."}; docker-py.test.ts asserts them.
# Usage: docker_py_matrix.py unix:///path/to.sock [case ...]   (no case: all of them)
import json
import sys
import time

import docker

BASE = sys.argv[1]
ONLY = set(sys.argv[2:])
client = docker.DockerClient(base_url=BASE, version='1.24', timeout=60)
api = client.api
PFX = 'dpy-'
CASES = []


def case(fn):
    CASES.append(fn)
    return fn


def b(x):
    return None if x is None else x.decode('utf-8', 'replace')


def sleeper(name, **kw):
    return client.containers.run('busybox', 'sleep 1000', detach=True, name=PFX + name, **kw)


@case
def exec_output():
    c = sleeper('exec')
    try:
        out = {}
        # a string command (docker-py splits it) whose output must be complete from the first byte
        out['whoami'] = b(api.exec_start(api.exec_create(c.id, 'whoami')))
        e = api.exec_create(c.id, ['sh', '-c', 'echo hello out; echo hello err >&2'])
        out['demux'] = [b(x) for x in api.exec_start(e, demux=True)]
        e = api.exec_create(c.id, ['sh', '-c', 'echo hello out; echo hello err >&2'], tty=True)
        out['tty'] = b(api.exec_start(e, tty=True))
        r = c.exec_run(['sh', '-c', 'echo run; exit 3'])
        out['exec_run'] = [r.exit_code, b(r.output)]
        r = c.exec_run('cat', stdin=True, socket=True)
        out['socket'] = type(r.output).__name__
        return out
    finally:
        c.remove(force=True)


@case
def exec_missing_binary():
    c = sleeper('exec-missing')
    try:
        e = api.exec_create(c.id, ['nosuchcmd'])
        out = b(api.exec_start(e))
        code = api.exec_inspect(e)['ExitCode']
        r = c.exec_run('nosuchcmd')
        try:
            api.exec_start(e, detach=True)
            again = 'no error'
        except docker.errors.APIError as err:
            again = [err.status_code, err.explanation]
        return {'output': out, 'exitCode': code, 'exec_run': [r.exit_code, b(r.output)], 'again': again, 'id': e['Id']}
    finally:
        c.remove(force=True)


@case
def healthcheck():
    # docker-py sends every field, StartPeriod null
    c = client.containers.run('busybox', 'sleep 1000', detach=True, name=PFX + 'health',
                              healthcheck={'test': ['CMD-SHELL', 'true'], 'interval': 100000000, 'timeout': 1000000000, 'retries': 3})
    try:
        status = None
        for _ in range(100):
            status = api.inspect_container(c.id)['State'].get('Health', {}).get('Status')
            if status == 'healthy':
                break
            time.sleep(0.1)
        zero = api.create_container('busybox', 'true', name=PFX + 'health0',
                                    healthcheck={'test': ['CMD', 'true'], 'interval': 0, 'timeout': 0, 'start_period': 0})
        try:
            zero_cfg = api.inspect_container(zero)['Config']['Healthcheck']
        finally:
            api.remove_container(zero, force=True)
        return {'status': status, 'config': api.inspect_container(c.id)['Config']['Healthcheck'], 'zero': zero_cfg}
    finally:
        c.remove(force=True)


@case
def logs_follow():
    c = client.containers.run('busybox', ['sh', '-c', 'for i in $(seq 1 20); do echo line$i; sleep 0.02; done'], detach=True, name=PFX + 'logs')
    try:
        whole = b(b''.join(c.logs(stream=True, follow=True)))
        # cancelled mid-stream: the client closes; the daemon must go on serving
        d = client.containers.run('busybox', ['sh', '-c', 'i=0; while true; do i=$((i+1)); echo tick$i; sleep 0.02; done'], detach=True, name=PFX + 'logs-cancel')
        try:
            s = d.logs(stream=True, follow=True)
            got = []
            for chunk in s:
                got.append(b(chunk))
                if len(got) >= 5:
                    break
            s.close()
            again = list(d.logs(stream=True, follow=False, tail=1))
            return {'whole': whole, 'cancelled': got, 'after': len(again), 'plain': b(c.logs())}
        finally:
            d.remove(force=True)
    finally:
        c.remove(force=True)


@case
def run_attach_cp_volumes():
    out = {}
    out['run'] = b(client.containers.run('busybox', ['sh', '-c', 'echo ran; echo err >&2'], remove=True, stderr=True))
    v = client.volumes.create(PFX + 'vol')
    try:
        client.containers.run('busybox', ['sh', '-c', 'echo in-volume > /data/f'], remove=True, volumes={v.name: {'bind': '/data', 'mode': 'rw'}})
        out['volume'] = b(client.containers.run('busybox', ['cat', '/data/f'], remove=True, volumes={v.name: {'bind': '/data', 'mode': 'ro'}}))
    finally:
        v.remove()
    c = api.create_container('busybox', ['sh', '-c', 'sleep 0.3; echo attached; sleep 0.2'], name=PFX + 'attach')
    try:
        stream = api.attach(c, stream=True, stdout=True, stderr=True, logs=True)
        api.start(c)
        out['attach'] = b(b''.join(stream))
        import io
        import tarfile
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode='w') as t:
            data = b'put by docker-py\n'
            info = tarfile.TarInfo('put.txt')
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
        out['put'] = api.put_archive(c, '/tmp', buf.getvalue())
        bits, stat = api.get_archive(c, '/tmp/put.txt')
        with tarfile.open(fileobj=io.BytesIO(b''.join(bits))) as t:
            out['get'] = b(t.extractfile('put.txt').read())
        out['stat'] = [stat['name'], stat['size']]
    finally:
        api.remove_container(c, force=True)
    return out


@case
def networks_links_mac():
    out = {}
    n = client.networks.create(PFX + 'net', driver='bridge')
    try:
        srv = client.containers.run('busybox', 'sleep 1000', detach=True, name=PFX + 'srv', network=n.name)
        try:
            n.disconnect(srv)
            n.connect(srv, aliases=['srv-alias'])
            out['alias'] = b(client.containers.run('busybox', ['ping', '-c1', '-W2', 'srv-alias'], remove=True, network=n.name)).splitlines()[-1]
        finally:
            srv.remove(force=True)
        # endpoint links, as compose sends them, to a container that is not running
        target = api.create_container('busybox', 'true', name=PFX + 'target', host_config=api.create_host_config(network_mode=n.name))
        lk = api.create_container('busybox', ['sh', '-c', 'echo linked'], name=PFX + 'linked',
                                  host_config=api.create_host_config(network_mode=n.name, links={PFX + 'target': 'db'}),
                                  networking_config=api.create_networking_config({n.name: api.create_endpoint_config(links=[(PFX + 'target', 'db')])}))
        try:
            api.start(lk)
            out['linked_exit'] = api.wait(lk)['StatusCode']
            ins = api.inspect_container(lk)
            out['linked'] = [ins['HostConfig']['Links'], ins['NetworkSettings']['Networks'][n.name]['Links']]
        finally:
            api.remove_container(lk, force=True)
            api.remove_container(target, force=True)
    except Exception as err:
        out['net_error'] = repr(err)
    finally:
        n.remove()
    # legacy links on the default bridge, removed with link=True
    a = api.create_container('busybox', 'sleep 1000', name=PFX + 'la')
    bb = api.create_container('busybox', 'sleep 1000', name=PFX + 'lb', host_config=api.create_host_config(links={PFX + 'la': 'mylink'}))
    try:
        api.start(a)
        api.start(bb)
        out['links_before'] = api.inspect_container(bb)['HostConfig']['Links']
        api.remove_container(PFX + 'lb/mylink', link=True)
        out['links_after'] = api.inspect_container(bb)['HostConfig']['Links']
    finally:
        api.remove_container(a, force=True)
        api.remove_container(bb, force=True)
    m = client.containers.run('busybox', 'sleep 1000', detach=True, name=PFX + 'mac', mac_address='92:d0:c6:0a:29:33')
    try:
        out['mac'] = [b(m.exec_run('cat /sys/class/net/eth0/address').output).strip(), api.inspect_container(m.id)['NetworkSettings']['MacAddress']]
    finally:
        m.remove(force=True)
    return out


@case
def ipv6():
    ipam = docker.types.IPAMConfig(pool_configs=[docker.types.IPAMPool(subnet='2001:db8:b::/64', gateway='2001:db8:b::1')])
    n = api.create_network(PFX + 'v6', driver='bridge', enable_ipv6=True, ipam=ipam)
    try:
        ni = api.inspect_network(n['Id'])
        ct = api.create_container('busybox', 'sleep 1000', name=PFX + 'v6c', host_config=api.create_host_config(network_mode=PFX + 'v6'),
                                  networking_config=api.create_networking_config({PFX + 'v6': api.create_endpoint_config(ipv6_address='2001:db8:b::f00')}))
        other = api.create_container('busybox', 'sleep 1000', name=PFX + 'v6d', host_config=api.create_host_config(network_mode=PFX + 'v6'))
        try:
            api.start(ct)
            api.start(other)
            ep = api.inspect_container(ct)['NetworkSettings']['Networks'][PFX + 'v6']
            e = api.exec_create(other, ['ping', '-6', '-c1', '-W2', '2001:db8:b::f00'])
            ping = b(api.exec_start(e))
            return {'EnableIPv6': ni['EnableIPv6'], 'subnets': [c['Subnet'] for c in ni['IPAM']['Config']],
                    'GlobalIPv6Address': ep['GlobalIPv6Address'], 'GlobalIPv6PrefixLen': ep['GlobalIPv6PrefixLen'],
                    'IPv6Gateway': ep['IPv6Gateway'], 'IPAddress': ep['IPAddress'], 'ping': api.exec_inspect(e)['ExitCode'], 'pingOut': ping}
        finally:
            api.remove_container(ct, force=True)
            api.remove_container(other, force=True)
    finally:
        api.remove_network(n['Id'])


@case
def swarm_services():
    # on a node that is a swarm manager (swarm-services.test.ts): the low-level service and task calls
    def running(sid, n):
        for _ in range(300):
            ts = [t for t in api.tasks(filters={'service': sid}) if t['DesiredState'] == 'running' and t['Status']['State'] == 'running']
            if len(ts) == n:
                return ts
            time.sleep(0.2)
        raise Exception('tasks of %s not running: %r' % (sid, api.tasks(filters={'service': sid})))
    spec = docker.types.TaskTemplate(container_spec=docker.types.ContainerSpec('busybox', ['sleep', '1000'], stop_grace_period=1000000000))
    created = api.create_service(spec, name=PFX + 'svc', mode=docker.types.ServiceMode('replicated', replicas=2),
                                 endpoint_spec=docker.types.EndpointSpec(ports={8080: 80}))
    sid = created['ID']
    try:
        first = running(sid, 2)
        svc = api.inspect_service(sid)
        spec2 = docker.types.TaskTemplate(container_spec=docker.types.ContainerSpec('busybox', ['sleep', '1001'], stop_grace_period=1000000000))
        api.update_service(sid, svc['Version']['Index'], task_template=spec2, name=PFX + 'svc', mode=docker.types.ServiceMode('replicated', replicas=1))
        after = running(sid, 1)
        while api.inspect_service(sid).get('UpdateStatus', {}).get('State') != 'completed':
            time.sleep(0.2)
        stale = None
        try:
            api.update_service(sid, svc['Version']['Index'], task_template=spec2, name=PFX + 'svc')
        except docker.errors.APIError as err:
            stale = [err.status_code, err.explanation]
        out = {
            'created': sorted(created.keys()),
            'services': [s['Spec']['Name'] for s in api.services(filters={'name': PFX})],
            'ports': svc['Endpoint']['Ports'],
            'first': len(first),
            'afterCmd': after[0]['Spec']['ContainerSpec']['Command'],
            'replaced': after[0]['ID'] not in [t['ID'] for t in first],
            'stale': stale,
            'nodes': [n['Spec']['Role'] for n in api.nodes()],
            'task': sorted(api.inspect_task(after[0]['ID']).keys()),
        }
    finally:
        api.remove_service(sid)
    out['removed'] = [s['Spec']['Name'] for s in api.services(filters={'name': PFX})]
    return out


@case
def build():
    import io
    import os
    import tempfile
    out = {}
    # a Dockerfile alone, as a file object (docker-py wraps it in a tar)
    df = io.BytesIO(b'FROM busybox\nLABEL from=fileobj\nCMD ["echo", "from-fileobj"]\n')
    img, logs = client.images.build(fileobj=df, tag=PFX + 'built:fileobj', rm=True)
    out['fileobj'] = {'tags': img.tags, 'labels': img.labels, 'logs': [x for x in logs if 'stream' in x][-1]['stream'],
                      'run': b(client.containers.run(PFX + 'built:fileobj', remove=True, network_mode='none'))}
    # a context folder, a Dockerfile of another name, buildargs; the low-level API's decoded stream
    with tempfile.TemporaryDirectory() as ctx:
        with open(os.path.join(ctx, 'Build.df'), 'w') as f:
            f.write('FROM busybox\nARG V=none\nCOPY data.txt /data.txt\nRUN echo "$V" >> /data.txt\nCMD ["cat", "/data.txt"]\n')
        with open(os.path.join(ctx, 'data.txt'), 'w') as f:
            f.write('ctx\n')
        img, _ = client.images.build(path=ctx, dockerfile='Build.df', buildargs={'V': 'arg'}, tag=PFX + 'built:path')
        out['path'] = b(client.containers.run(img.id, remove=True, network_mode='none'))
        lines = list(api.build(path=ctx, dockerfile='Build.df', buildargs={'V': 'arg'}, decode=True))
        out['cached'] = sum(1 for x in lines if x.get('stream') == ' ---> Using cache\n')
        out['ids'] = [img.id == client.images.get(PFX + 'built:path').id]
        with open(os.path.join(ctx, 'Bad.df'), 'w') as f:
            f.write('FROM busybox\nRUN echo failing; exit 4\n')
        try:
            client.images.build(path=ctx, dockerfile='Bad.df', forcerm=True)
            out['bad'] = 'no error'
        except docker.errors.BuildError as err:
            out['bad'] = {'msg': err.msg, 'printed': 'failing\n' in ''.join(x.get('stream', '') for x in err.build_log)}
    # docker-py's build sends rm=False unless told: the engine keeps the step containers (ARG, RUN, CMD; COPY makes none)
    left = client.containers.list(all=True)
    out['left'] = sorted(c.attrs['Config']['Cmd'][-1].split(' ')[0] for c in left)
    for c in left:
        c.remove()
    client.images.remove(PFX + 'built:fileobj')
    client.images.remove(PFX + 'built:path')
    out['images'] = len(client.images.list(all=True))
    return out



for fn in CASES:
    if ONLY and fn.__name__ not in ONLY:
        continue
    try:
        print(json.dumps({'case': fn.__name__, 'result': fn()}), flush=True)
    except Exception as err:  # reported to the test, which fails on it
        import traceback
        print(json.dumps({'case': fn.__name__, 'error': repr(err), 'trace': traceback.format_exc()}), flush=True)
