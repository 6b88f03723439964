"""A subprocess VecEnv that runs several environments per worker process.

SB3's SubprocVecEnv has one process per environment and one pipe round trip for
each step plus another for the action masks. Here `workers` processes (one per
core) each step a group of environments, so the policy runs on a batch of all
of them at once while the groups step in parallel, and every reply carries the
new action masks, which `env_method("action_masks")` then returns without asking
the workers again.
"""
from __future__ import annotations

import contextlib
import multiprocessing as mp
import signal

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import CloudpickleWrapper, VecEnv

MASKS = "action_masks"


def _worker(remote, parent_remote, factories: CloudpickleWrapper) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # Ctrl-C is the main process's: it closes the workers
    parent_remote.close()
    envs = [make() for make in factories.var]
    masks = lambda: [env.action_masks() for env in envs]      # noqa: E731
    while True:
        try:
            cmd, data = remote.recv()
        except EOFError:                            # the main process is gone
            break
        if cmd == "step":
            results = []
            for env, action in zip(envs, data):
                obs, reward, terminated, truncated, info = env.step(action)
                done = terminated or truncated
                info["TimeLimit.truncated"] = truncated and not terminated
                reset_info = {}
                if done:
                    info["terminal_observation"] = obs
                    obs, reset_info = env.reset()
                results.append((obs, reward, done, info, reset_info))
            remote.send((results, masks()))
        elif cmd == "reset":
            results = [env.reset(seed=seed, **({"options": options} if options else {}))
                       for env, seed, options in zip(envs, *data)]
            remote.send((results, masks()))
        elif cmd == "env_method":
            name, args, kwargs, indices = data
            remote.send([getattr(envs[i], name)(*args, **kwargs) for i in indices])
        elif cmd == "has_attr":
            remote.send([all(hasattr(env, data) for env in envs)])
        elif cmd == "get_attr":
            name, indices = data
            remote.send([getattr(envs[i], name) for i in indices])
        elif cmd == "set_attr":
            name, value, indices = data
            for i in indices:
                setattr(envs[i], name, value)
            remote.send(None)
        elif cmd == "spaces":
            remote.send((envs[0].observation_space, envs[0].action_space))
        elif cmd == "close":
            for env in envs:
                env.close()
            remote.close()
            break


class WorkerVecEnv(VecEnv):
    """`len(env_fns)` environments spread over `workers` processes (contiguous groups)."""

    def __init__(self, env_fns, workers: int = 2, start_method: str = "forkserver"):
        n = len(env_fns)
        workers = max(1, min(workers, n))
        bounds = np.linspace(0, n, workers + 1).round().astype(int)
        self.groups = [range(bounds[w], bounds[w + 1]) for w in range(workers)]
        ctx = mp.get_context(start_method)
        self.remotes, self.processes = [], []
        for group in self.groups:
            remote, work_remote = ctx.Pipe()
            args = (work_remote, remote, CloudpickleWrapper([env_fns[i] for i in group]))
            process = ctx.Process(target=_worker, args=args, daemon=True)
            process.start()
            work_remote.close()
            self.remotes.append(remote)
            self.processes.append(process)
        self.remotes[0].send(("spaces", None))
        observation_space, action_space = self.remotes[0].recv()
        super().__init__(n, observation_space, action_space)
        self.masks = None
        self.closed = False

    def _gather(self):
        """Results of every worker in env order, and the new masks."""
        results, masks = [], []
        for remote in self.remotes:
            r, m = remote.recv()
            results += r
            masks += m
        self.masks = np.stack(masks)
        return results

    def step_async(self, actions: np.ndarray) -> None:
        for remote, group in zip(self.remotes, self.groups):
            remote.send(("step", [actions[i] for i in group]))

    def step_wait(self):
        obs, rewards, dones, infos, self.reset_infos = zip(*self._gather())
        return np.stack(obs), np.array(rewards, dtype=np.float32), np.array(dones), list(infos)

    def reset(self):
        for remote, group in zip(self.remotes, self.groups):
            remote.send(("reset", ([self._seeds[i] for i in group], [self._options[i] for i in group])))
        obs, self.reset_infos = zip(*self._gather())
        self._reset_seeds()
        self._reset_options()
        return np.stack(obs)

    def _by_worker(self, indices):
        """(remote, local indices) for the workers holding `indices`."""
        wanted = set(self._get_indices(indices))
        return [(remote, [i - group.start for i in group if i in wanted])
                for remote, group in zip(self.remotes, self.groups) if wanted & set(group)]

    def _ask(self, cmd: str, make_data, indices) -> list:
        targets = self._by_worker(indices)
        for remote, local in targets:
            remote.send((cmd, make_data(local)))
        return [x for remote, _ in targets for x in remote.recv()]

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        if method_name == MASKS and not method_args and not method_kwargs:
            return list(self.masks[list(self._get_indices(indices))])
        return self._ask("env_method", lambda local: (method_name, method_args, method_kwargs, local), indices)

    def has_attr(self, attr_name: str) -> bool:
        """Asked in the workers: SB3's default would pickle the attribute (a bound method: the whole env)."""
        return all(self._ask("has_attr", lambda local: attr_name, None))

    def get_attr(self, attr_name: str, indices=None) -> list:
        return self._ask("get_attr", lambda local: (attr_name, local), indices)

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        for remote, local in self._by_worker(indices):
            remote.send(("set_attr", (attr_name, value, local)))
            remote.recv()

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))

    def close(self) -> None:
        """Stop every worker, also after an interruption in the middle of a step (a worker that does
        not end within seconds is terminated)."""
        if self.closed:
            return
        for remote in self.remotes:
            with contextlib.suppress(OSError):      # a worker that died already
                remote.send(("close", None))
        for process in self.processes:
            process.join(timeout=10)
            if process.is_alive():
                process.terminate()
                process.join()
        for remote in self.remotes:
            remote.close()
        self.closed = True

    def get_images(self):
        raise NotImplementedError("WorkerVecEnv environments do not render")
